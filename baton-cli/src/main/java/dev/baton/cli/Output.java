package dev.baton.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.Job;
import dev.baton.JobError;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Text tables and JSON documents. JSON names are the column names of the tables ({@code
 * snake_case}), states are stored names ({@code available}), times are ISO-8601 UTC.
 */
final class Output {
  static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private Output() {}

  /** A new JSON object. */
  static ObjectNode object() {
    return JsonNodeFactory.instance.objectNode();
  }

  /** A new JSON array. */
  static ArrayNode array() {
    return JsonNodeFactory.instance.arrayNode();
  }

  /** Prints {@code doc} as one JSON document. */
  static void printJson(PrintWriter out, JsonNode doc) {
    try {
      out.println(MAPPER.writeValueAsString(doc));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON", e);
    }
    out.flush();
  }

  /** {@code t} as ISO-8601 UTC, or {@code -}. */
  static String time(Instant t) {
    return t == null ? "-" : t.toString();
  }

  /** {@code job} as a JSON object. */
  static ObjectNode job(Job job) {
    ObjectNode o = object();
    o.put("id", job.id());
    o.put("queue", job.queue());
    o.put("kind", job.kind());
    o.put("state", job.state().dbName());
    o.put("priority", job.priority());
    o.put("attempt", job.attempt());
    o.put("max_attempts", job.maxAttempts());
    o.set("args", job.args());
    o.put("scheduled_at", iso(job.scheduledAt()));
    o.put("attempted_at", iso(job.attemptedAt()));
    o.put("attempted_by", job.attemptedBy());
    o.put("lease_expires_at", iso(job.leaseExpiresAt()));
    o.put("deadline_at", iso(job.deadlineAt()));
    o.put("fence", job.fence());
    o.put("idempotency_key", job.idempotencyKey());
    ArrayNode errors = o.putArray("errors");
    for (JobError e : job.errors()) {
      ObjectNode eo = errors.addObject();
      eo.put("attempt", e.attempt());
      eo.put("at", iso(e.at()));
      eo.put("error", e.error());
      eo.put("message", e.message());
      eo.put("trace", e.trace());
    }
    o.set("metadata", job.metadata());
    o.put("created_at", iso(job.createdAt()));
    o.put("finalized_at", iso(job.finalizedAt()));
    return o;
  }

  private static String iso(Instant t) {
    return t == null ? null : t.toString();
  }

  /** A text table: a header row and rows, columns padded to their widest cell. */
  static final class Table {
    private final List<String[]> rows = new ArrayList<>();
    private final int columns;

    Table(String... header) {
      this.columns = header.length;
      rows.add(header);
    }

    /** Adds a row; null cells print as {@code -}. */
    Table row(Object... cells) {
      String[] r = new String[columns];
      for (int i = 0; i < columns; i++) {
        Object c = i < cells.length ? cells[i] : null;
        r[i] = c == null ? "-" : c.toString();
      }
      rows.add(r);
      return this;
    }

    /** Whether only the header is there. */
    boolean isEmpty() {
      return rows.size() == 1;
    }

    /** Prints the table, two spaces between columns, no trailing spaces. */
    void print(PrintWriter out) {
      int[] widths = new int[columns];
      for (String[] r : rows) {
        for (int i = 0; i < columns; i++) {
          widths[i] = Math.max(widths[i], r[i].length());
        }
      }
      for (String[] r : rows) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < columns; i++) {
          sb.append(r[i]);
          if (i < columns - 1) {
            sb.append(" ".repeat(widths[i] - r[i].length() + 2));
          }
        }
        out.println(sb.toString().stripTrailing());
      }
      out.flush();
    }
  }
}
