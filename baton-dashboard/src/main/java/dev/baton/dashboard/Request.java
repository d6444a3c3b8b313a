package dev.baton.dashboard;

import com.sun.net.httpserver.HttpExchange;
import dev.baton.JobArgs;
import dev.baton.JobState;
import dev.baton.QueueConfig;
import dev.baton.admin.JobBrowser;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One request as the dashboard reads it: its path below the mount point, its query and form
 * parameters (first value of each), its cookies; and the checks of every parameter, each failing
 * with a {@link BadRequest} that names the parameter, what it must be and what it was.
 */
final class Request {

  /** Largest form body read: 64 KiB (a form has a handful of short fields). */
  static final int MAX_FORM_BYTES = 64 * 1024;

  private static final int MAX_SHOWN = 60;

  final HttpExchange exchange;
  final String base;
  final String path;
  final String method;
  private final Map<String, String> query;
  private Map<String, String> form;
  private String rawForm = "";

  Request(HttpExchange exchange) {
    this.exchange = exchange;
    String context = exchange.getHttpContext().getPath();
    this.base = context.endsWith("/") ? context.substring(0, context.length() - 1) : context;
    String full = exchange.getRequestURI().getRawPath();
    String rel = full.length() >= base.length() ? full.substring(base.length()) : full;
    this.path = rel.isEmpty() ? "/" : rel;
    this.method = exchange.getRequestMethod();
    this.query = parse(exchange.getRequestURI().getRawQuery());
  }

  /** A parameter of the query, else of the form body (POST), blank as absent; or null. */
  String param(String name) {
    String v = query.get(name);
    if (v == null && "POST".equals(method)) {
      v = form().get(name);
    }
    return v == null || v.isBlank() ? null : v.strip();
  }

  /** The form body's parameters (read once, at most {@value #MAX_FORM_BYTES} bytes). */
  Map<String, String> form() {
    if (form == null) {
      String type = exchange.getRequestHeaders().getFirst("Content-Type");
      if (type == null || !type.startsWith("application/x-www-form-urlencoded")) {
        form = Map.of();
        return form;
      }
      try (InputStream in = exchange.getRequestBody()) {
        byte[] body = in.readNBytes(MAX_FORM_BYTES + 1);
        if (body.length > MAX_FORM_BYTES) {
          throw new BadRequest(413, "form body over " + MAX_FORM_BYTES + " bytes");
        }
        rawForm = new String(body, StandardCharsets.UTF_8);
        form = parse(rawForm);
      } catch (IOException e) {
        throw BadRequest.of("cannot read the form body: " + e.getMessage());
      }
    }
    return form;
  }

  /** Every value of form field {@code name}, in order (checkboxes of one name); empty for none. */
  List<String> formAll(String name) {
    form();
    List<String> out = new ArrayList<>();
    for (String pair : rawForm.split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0 && URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8).equals(name)) {
        String v = URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
        if (!v.isBlank()) {
          out.add(v.strip());
        }
      }
    }
    return out;
  }

  /** The value of cookie {@code name}, or null. */
  String cookie(String name) {
    return cookie(exchange, name);
  }

  /** The value of cookie {@code name} of {@code exchange}'s request, or null. */
  static String cookie(HttpExchange exchange, String name) {
    for (String header : exchange.getRequestHeaders().getOrDefault("Cookie", List.of())) {
      for (String part : header.split(";")) {
        int eq = part.indexOf('=');
        if (eq > 0 && part.substring(0, eq).strip().equals(name)) {
          return part.substring(eq + 1).strip();
        }
      }
    }
    return null;
  }

  /** A header's first value, or null. */
  String header(String name) {
    return exchange.getRequestHeaders().getFirst(name);
  }

  /** The job filter of the parameters state, queue, kind, id and key. */
  JobBrowser.Filter filter() {
    return new JobBrowser.Filter(
        state(param("state")),
        queue("queue", param("queue")),
        kind(param("kind")),
        id("id", param("id")),
        key(param("key")),
        json("args", param("args")),
        json("metadata", param("metadata")));
  }

  /** Longest JSON to look for in args or metadata: 4,096 characters. */
  static final int MAX_JSON_FILTER = 4_096;

  private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
      new com.fasterxml.jackson.databind.ObjectMapper();

  /** A JSON object to look for in the args or the metadata (containment); null for none. */
  static com.fasterxml.jackson.databind.JsonNode json(String name, String v) {
    if (v == null) {
      return null;
    }
    String expected =
        "expected a JSON object of at most "
            + MAX_JSON_FILTER
            + " characters that the "
            + name
            + " contain, e.g. {\"customer_id\": 42}, got ";
    if (v.length() > MAX_JSON_FILTER) {
      throw BadRequest.of(
          "invalid parameter " + name + ": " + expected + v.length() + " characters");
    }
    com.fasterxml.jackson.databind.JsonNode n;
    try {
      n = JSON.readTree(v);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw BadRequest.of("invalid parameter " + name + ": " + expected + shown(v));
    }
    if (n == null || !n.isObject()) {
      throw BadRequest.of("invalid parameter " + name + ": " + expected + shown(v));
    }
    return n;
  }

  /** The parameters a job list takes (its filter, page and the message after an action). */
  static final java.util.Set<String> LIST_PARAMS =
      java.util.Set.of(
          "state",
          "queue",
          "kind",
          "id",
          "key",
          "args",
          "metadata",
          "limit",
          "after",
          "done",
          "job",
          "n",
          "skipped");

  /**
   * Refuses a query parameter a job list does not take (such as {@code q}), rather than ignoring it
   * and showing every job as if it had been applied.
   */
  void requireListParams() {
    for (String name : query.keySet()) {
      if (!LIST_PARAMS.contains(name)) {
        throw BadRequest.of(
            "unknown parameter "
                + shown(name)
                + "; a job list takes state, queue, kind, id, key, args (JSON the args contain),"
                + " metadata, limit and after");
      }
    }
  }

  /** The page size: parameter {@code limit}, 1..{@value JobBrowser#MAX_PAGE_SIZE}. */
  int limit() {
    String v = param("limit");
    if (v == null) {
      return JobBrowser.DEFAULT_PAGE_SIZE;
    }
    long n = number("limit", v, "a page size 1.." + JobBrowser.MAX_PAGE_SIZE);
    if (n < 1 || n > JobBrowser.MAX_PAGE_SIZE) {
      throw BadRequest.of(
          "invalid parameter limit: expected a page size 1.."
              + JobBrowser.MAX_PAGE_SIZE
              + ", got "
              + n);
    }
    return (int) n;
  }

  static JobState state(String v) {
    if (v == null) {
      return null;
    }
    try {
      return JobState.fromDb(v);
    } catch (IllegalArgumentException e) {
      throw BadRequest.of(
          "invalid parameter state: expected one of pending, scheduled, available, running,"
              + " retryable, completed, cancelled, discarded, got "
              + shown(v));
    }
  }

  static String queue(String name, String v) {
    if (v != null && !QueueConfig.isValidName(v)) {
      throw BadRequest.of(
          "invalid parameter "
              + name
              + ": expected a queue name (1-64 letters, digits, _ - ., starting with a letter or"
              + " digit), got "
              + shown(v));
    }
    return v;
  }

  static String kind(String v) {
    if (v != null && !JobArgs.isValidKind(v)) {
      throw BadRequest.of(
          "invalid parameter kind: expected a kind (1-128 letters, digits and _ . : - /), got "
              + shown(v));
    }
    return v;
  }

  static Long id(String name, String v) {
    if (v == null) {
      return null;
    }
    long n = number(name, v, "a job id (a positive whole number)");
    if (n < 1) {
      throw BadRequest.of(
          "invalid parameter " + name + ": expected a job id (a positive whole number), got " + n);
    }
    return n;
  }

  static String key(String v) {
    if (v != null && v.length() > 255) {
      throw BadRequest.of(
          "invalid parameter key: expected an idempotency key of 1-255 characters, got "
              + v.length());
    }
    return v;
  }

  private static long number(String name, String v, String expected) {
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw BadRequest.of(
          "invalid parameter " + name + ": expected " + expected + ", got " + shown(v));
    }
  }

  /** A value the user gave, quoted and cut for a message. */
  static String shown(String v) {
    return "\"" + Html.cut(v, MAX_SHOWN) + "\"";
  }

  private static Map<String, String> parse(String raw) {
    Map<String, String> out = new LinkedHashMap<>();
    if (raw == null || raw.isEmpty()) {
      return out;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      String k = eq < 0 ? pair : pair.substring(0, eq);
      String v = eq < 0 ? "" : pair.substring(eq + 1);
      try {
        out.putIfAbsent(
            URLDecoder.decode(k, StandardCharsets.UTF_8),
            URLDecoder.decode(v, StandardCharsets.UTF_8));
      } catch (IllegalArgumentException e) {
        throw BadRequest.of("malformed query or form: " + e.getMessage());
      }
    }
    return out;
  }
}
