package dev.baton.bench.hardbyte;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one run of the hardbyte adapter is told, read from its environment (the "Runtime contract"
 * of hardbyte/postgresql-job-queue-benchmarking's CONTRIBUTING_ADAPTERS.md), with the harness's
 * defaults ({@code bench_harness/adapters.py}) where a variable is missing.
 *
 * @param jdbcUrl {@code DATABASE_URL} as a JDBC URL ({@code postgres://user:password@host:port/db}
 *     is converted; a {@code jdbc:postgresql:} URL is taken as it is)
 * @param dbName the database named by the URL, for the descriptor
 * @param scenario {@code SCENARIO}; only {@code long_horizon} is implemented
 * @param producerMode {@code PRODUCER_MODE}: {@code fixed} (default) or {@code depth-target}
 * @param producerRate {@code PRODUCER_RATE}, jobs/s offered in fixed mode [800]; 0 produces nothing
 * @param targetDepth {@code TARGET_DEPTH}, available jobs kept in depth-target mode [1000]
 * @param workerCount {@code WORKER_COUNT}, the concurrency of the one queue worked [32]
 * @param payloadBytes {@code JOB_PAYLOAD_BYTES}, rough size of a job's args JSON [256]
 * @param jobWork {@code JOB_WORK_MS}, how long each handler sleeps [1 ms]; 0 returns at once
 * @param sampleEvery {@code SAMPLE_EVERY_S}, the sample cadence [5 s], whole seconds, at least 1
 * @param producerBatchMax {@code PRODUCER_BATCH_MAX}, most jobs per {@code enqueueMany} call [128]
 * @param producerBatchPeriod {@code PRODUCER_BATCH_MS}, the local pacer's tick [10 ms]
 * @param harnessPacing {@code PRODUCER_PACING=harness}: in fixed mode, enqueue what the harness's
 *     {@code ENQUEUE <n>} lines on stdin ask for, falling back to the local pacer when stdin ends;
 *     {@code adapter} (default): pace locally
 * @param rateControlFile {@code PRODUCER_RATE_CONTROL_FILE}, a file holding the current rate that
 *     the harness rewrites for high-load phases (re-read every 250 ms), or null
 * @param instanceId {@code BENCH_INSTANCE_ID} [0]; only instance 0 reports queue-wide figures
 * @param schema {@code BATON_SCHEMA}, Baton's schema [baton]
 * @param poolSize {@code BATON_POOL}, the HikariCP pool of the client [10]: the handlers never use
 *     the database, the client needs about five connections, plus the producer and the depth poll
 */
record HardbyteSettings(
    String jdbcUrl,
    String dbName,
    String scenario,
    ProducerMode producerMode,
    int producerRate,
    int targetDepth,
    int workerCount,
    int payloadBytes,
    Duration jobWork,
    Duration sampleEvery,
    int producerBatchMax,
    Duration producerBatchPeriod,
    boolean harnessPacing,
    Path rateControlFile,
    int instanceId,
    String schema,
    int poolSize) {

  /** How the producer decides how many jobs to enqueue. */
  enum ProducerMode {
    /** {@code PRODUCER_RATE} jobs per second, credited on wall-clock time elapsed. */
    FIXED,
    /** Keep about {@code TARGET_DEPTH} jobs available (a diagnostic mode of the harness). */
    DEPTH_TARGET
  }

  /** The one scenario implemented. */
  static final String LONG_HORIZON = "long_horizon";

  /**
   * Reads {@code env}.
   *
   * @throws IllegalArgumentException naming the variable, what was expected and what was received
   */
  static HardbyteSettings fromEnvironment(Map<String, String> env) {
    String url = get(env, "DATABASE_URL", null);
    if (url == null) {
      throw new IllegalArgumentException(
          "DATABASE_URL must be set (postgres://user:password@host:port/db or a"
              + " jdbc:postgresql: URL)");
    }
    String mode = get(env, "PRODUCER_MODE", "fixed");
    ProducerMode producerMode =
        switch (mode) {
          case "fixed" -> ProducerMode.FIXED;
          case "depth-target" -> ProducerMode.DEPTH_TARGET;
          default ->
              throw new IllegalArgumentException(
                  "PRODUCER_MODE must be fixed or depth-target, got \"" + mode + "\"");
        };
    String pacing = get(env, "PRODUCER_PACING", "adapter");
    if (!pacing.equals("adapter") && !pacing.equals("harness")) {
      throw new IllegalArgumentException(
          "PRODUCER_PACING must be adapter or harness, got \"" + pacing + "\"");
    }
    String schema = get(env, "BATON_SCHEMA", "baton");
    if (!schema.matches("[a-z_][a-z0-9_]{0,54}")) {
      throw new IllegalArgumentException(
          "BATON_SCHEMA must be 1-55 lower-case letters, digits and _, starting with a letter or"
              + " _, got \""
              + schema
              + "\"");
    }
    String control = get(env, "PRODUCER_RATE_CONTROL_FILE", null);
    return new HardbyteSettings(
        jdbcUrl(url),
        dbName(url),
        get(env, "SCENARIO", LONG_HORIZON),
        producerMode,
        integer(env, "PRODUCER_RATE", 800, 0),
        integer(env, "TARGET_DEPTH", 1000, 0),
        integer(env, "WORKER_COUNT", 32, 1),
        integer(env, "JOB_PAYLOAD_BYTES", 256, 0),
        Duration.ofMillis(integer(env, "JOB_WORK_MS", 1, 0)),
        Duration.ofSeconds(integer(env, "SAMPLE_EVERY_S", 5, 1)),
        integer(env, "PRODUCER_BATCH_MAX", 128, 1),
        Duration.ofMillis(integer(env, "PRODUCER_BATCH_MS", 10, 1)),
        pacing.equals("harness"),
        control == null ? null : Path.of(control),
        integer(env, "BENCH_INSTANCE_ID", 0, 0),
        schema,
        integer(env, "BATON_POOL", 10, 2));
  }

  /**
   * A JDBC URL for {@code url}: a {@code jdbc:} URL as it is; a libpq URL ({@code
   * postgres[ql]://[user[:password]@][host][:port][/db][?params]}) with user and password as
   * parameters (percent-decoded, then encoded again), host {@code localhost} and port 5432 by
   * default, database the user's name by default (as libpq), and its other parameters passed on.
   *
   * @throws IllegalArgumentException if it is neither
   */
  static String jdbcUrl(String url) {
    if (url.startsWith("jdbc:")) {
      return url;
    }
    LibpqUrl u = LibpqUrl.parse(url);
    List<String> params = new ArrayList<>();
    if (u.user() != null) {
      params.add("user=" + encode(u.user()));
    }
    if (u.password() != null) {
      params.add("password=" + encode(u.password()));
    }
    if (!u.query().isEmpty()) {
      params.add(u.query());
    }
    String db = u.db().isEmpty() && u.user() != null ? u.user() : u.db();
    return "jdbc:postgresql://"
        + u.hostPort()
        + "/"
        + encode(db)
        + (params.isEmpty() ? "" : "?" + String.join("&", params));
  }

  /** The database a URL names (empty when a libpq URL names none). */
  static String dbName(String url) {
    if (url.startsWith("jdbc:")) {
      String rest = url.substring(url.indexOf("//") + 2);
      int slash = rest.indexOf('/');
      if (slash < 0) {
        return "";
      }
      String db = rest.substring(slash + 1);
      int q = db.indexOf('?');
      return decode(q < 0 ? db : db.substring(0, q));
    }
    return LibpqUrl.parse(url).db();
  }

  /**
   * The parts of a libpq URL: user and password decoded (null when absent), host and port with
   * libpq's defaults, the database decoded, the raw query.
   */
  private record LibpqUrl(String user, String password, String hostPort, String db, String query) {
    static LibpqUrl parse(String url) {
      int scheme = url.indexOf("://");
      String name = scheme < 0 ? "" : url.substring(0, scheme);
      if (!name.equals("postgres") && !name.equals("postgresql")) {
        throw new IllegalArgumentException(
            "DATABASE_URL must be postgres://user:password@host:port/db or a jdbc:postgresql: URL,"
                + " got \""
                + url.replaceAll(":[^:@/]*@", ":***@")
                + "\"");
      }
      String rest = url.substring(scheme + 3);
      String query = "";
      int q = rest.indexOf('?');
      if (q >= 0) {
        query = rest.substring(q + 1);
        rest = rest.substring(0, q);
      }
      String db = "";
      int slash = rest.indexOf('/');
      if (slash >= 0) {
        db = decode(rest.substring(slash + 1));
        rest = rest.substring(0, slash);
      }
      String user = null;
      String password = null;
      int at = rest.lastIndexOf('@');
      if (at >= 0) {
        String[] userInfo = rest.substring(0, at).split(":", 2);
        user = userInfo[0].isEmpty() ? null : decode(userInfo[0]);
        password = userInfo.length > 1 ? decode(userInfo[1]) : null;
        rest = rest.substring(at + 1);
      }
      String host = rest;
      String port = "5432";
      int colon = rest.lastIndexOf(':');
      if (colon >= 0 && colon > rest.lastIndexOf(']')) { // not inside an [IPv6] address
        host = rest.substring(0, colon);
        port = rest.substring(colon + 1);
      }
      if (!port.matches("\\d{1,5}")) {
        throw new IllegalArgumentException(
            "DATABASE_URL has a port that is not a number: \"" + port + "\"");
      }
      return new LibpqUrl(
          user, password, (host.isEmpty() ? "localhost" : host) + ":" + port, db, query);
    }
  }

  private static String decode(String s) {
    return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private static String get(Map<String, String> env, String key, String fallback) {
    String v = env.get(key);
    return v == null || v.isBlank() ? fallback : v.trim();
  }

  private static int integer(Map<String, String> env, String key, int fallback, int min) {
    String v = get(env, key, null);
    if (v == null) {
      return fallback;
    }
    int n;
    try {
      n = Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          key + " must be a whole number >= " + min + ", got \"" + v + "\"", e);
    }
    if (n < min) {
      throw new IllegalArgumentException(key + " must be >= " + min + ", got " + n);
    }
    return n;
  }

  /** The settings that shape the figures, for the descriptor. */
  Map<String, Object> tuning() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("producer_mode", producerMode == ProducerMode.FIXED ? "fixed" : "depth-target");
    m.put("producer_rate", producerRate);
    m.put("target_depth", targetDepth);
    m.put("worker_count", workerCount);
    m.put("job_payload_bytes", payloadBytes);
    m.put("job_work_ms", jobWork.toMillis());
    m.put("sample_every_s", sampleEvery.toSeconds());
    m.put("producer_batch_max", producerBatchMax);
    m.put("producer_batch_ms", producerBatchPeriod.toMillis());
    m.put("producer_pacing", harnessPacing ? "harness" : "adapter");
    m.put("baton_pool", poolSize);
    return m;
  }
}
