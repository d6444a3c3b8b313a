package dev.baton.internal.db;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.BatonException;
import dev.baton.Job;
import dev.baton.JobError;
import dev.baton.JobState;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * One job row as read, with JSON columns as text. {@code existing} is set when an enqueue's
 * idempotency key or unique key matched this row instead of inserting, {@code updated} when that
 * enqueue also replaced or debounced it.
 *
 * <p>Not public API.
 */
public record JobRow(
    long id,
    String queue,
    String kind,
    String args,
    String state,
    int priority,
    int attempt,
    int maxAttempts,
    Instant scheduledAt,
    Instant attemptedAt,
    String attemptedBy,
    Instant leaseExpiresAt,
    Instant deadlineAt,
    long fence,
    String idempotencyKey,
    String errors,
    String metadata,
    Instant createdAt,
    Instant finalizedAt,
    boolean existing,
    boolean updated) {

  /**
   * The columns {@link #read} takes, in its order, of the job table: what every statement that
   * reads a job row selects or returns, written once here.
   */
  @Fragment static final String COLUMNS = columnsOf("");

  /** {@link #COLUMNS} of the job row a statement names {@code j}, beside other tables. */
  @Fragment static final String COLUMNS_OF_J = columnsOf("j.");

  /** {@link #COLUMNS} of the job row {@code row} names: {@code "j."}, {@code "(e.job)."}. */
  static String columnsOf(String row) {
    return String.join(
        ", ",
        row + "id",
        row + "queue",
        row + "kind",
        row + "args::text AS args",
        row + "state",
        row + "priority",
        row + "attempt",
        row + "max_attempts",
        micros(row, "scheduled_at"),
        micros(row, "attempted_at"),
        row + "attempted_by",
        micros(row, "lease_expires_at"),
        micros(row, "deadline_at"),
        row + "fence",
        row + "idempotency_key",
        row + "errors::text AS errors",
        row + "metadata::text AS metadata",
        micros(row, "created_at"),
        micros(row, "finalized_at"));
  }

  // Epoch microseconds: pgjdbc builds a calendar for each result set that reads a timestamptz, a
  // large share of the client's CPU in a single enqueue.
  private static String micros(String row, String column) {
    return "(extract(epoch FROM " + row + column + ") * 1000000)::bigint AS " + column;
  }

  /**
   * Reads a row whose first columns are, in this order: id, queue, kind, args (as text), state,
   * priority, attempt, max_attempts, scheduled_at, attempted_at, attempted_by, lease_expires_at,
   * deadline_at, fence, idempotency_key, errors (as text), metadata (as text), created_at,
   * finalized_at; every time as microseconds since the epoch. By position: a lookup by name builds
   * a map of the result's column names for each result set. Every statement that reads a job row
   * selects {@link #COLUMNS}; {@code JobRowStatementsTest} checks that they agree.
   */
  public static JobRow read(ResultSet rs, boolean existing) throws SQLException {
    return read(rs, existing, false);
  }

  /** {@link #read(ResultSet, boolean)}, for an enqueue that may have {@code updated} the row. */
  static JobRow read(ResultSet rs, boolean existing, boolean updated) throws SQLException {
    return new JobRow(
        rs.getLong(1),
        rs.getString(2),
        rs.getString(3),
        rs.getString(4),
        rs.getString(5),
        rs.getInt(6),
        rs.getInt(7),
        rs.getInt(8),
        Timestamps.instantOfMicros(rs, 9),
        Timestamps.instantOfMicros(rs, 10),
        rs.getString(11),
        Timestamps.instantOfMicros(rs, 12),
        Timestamps.instantOfMicros(rs, 13),
        rs.getLong(14),
        rs.getString(15),
        rs.getString(16),
        rs.getString(17),
        Timestamps.instantOfMicros(rs, 18),
        Timestamps.instantOfMicros(rs, 19),
        existing,
        updated);
  }

  /** The public view of this row; its JSON columns parsed with {@code mapper}. */
  public Job toJob(ObjectMapper mapper) {
    try {
      return new Job(
          id,
          queue,
          kind,
          mapper.readTree(args),
          JobState.fromDb(state),
          priority,
          attempt,
          maxAttempts,
          scheduledAt,
          attemptedAt,
          attemptedBy,
          leaseExpiresAt,
          deadlineAt,
          fence,
          idempotencyKey,
          errors(mapper),
          // a job enqueued without metadata, the common case, skips a parse
          "{}".equals(metadata) ? mapper.createObjectNode() : mapper.readTree(metadata),
          createdAt,
          finalizedAt);
    } catch (JsonProcessingException e) {
      throw new BatonException("cannot read job (id=" + id + "): stored JSON is invalid", e);
    }
  }

  private List<JobError> errors(ObjectMapper mapper) throws JsonProcessingException {
    if ("[]".equals(errors)) {
      return List.of(); // every new job, and every job that has not failed yet
    }
    List<JobError> errs = new ArrayList<>();
    for (JsonNode e : mapper.readTree(errors)) {
      errs.add(
          new JobError(
              e.path("attempt").asInt(),
              e.hasNonNull("at") ? parseInstant(e.get("at").asText()) : null,
              e.path("error").asText(null),
              e.path("message").asText(null),
              e.path("trace").asText(null)));
    }
    return List.copyOf(errs);
  }

  private static Instant parseInstant(String s) {
    try {
      return OffsetDateTime.parse(s).toInstant();
    } catch (RuntimeException e) {
      return null;
    }
  }
}
