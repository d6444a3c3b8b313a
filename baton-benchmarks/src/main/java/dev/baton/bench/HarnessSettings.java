package dev.baton.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.BatonConfig;
import dev.baton.cli.bench.Bench;
import dev.baton.cli.bench.BenchJobs;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * What one run of the peer harness's external command is told (its environment, see {@link
 * HarnessAdapter}) and how Baton is set up for it.
 *
 * <p>Settings, all from the environment:
 *
 * <ul>
 *   <li>From the harness (contract v1): {@code JDBC_URL}, {@code WORKLOAD}, {@code ROUND}, {@code
 *       W1_N}, {@code W1_WARM}, {@code W2_N}, {@code W2_RATE}, {@code W2_WARM}, {@code W2_IDLE_MS},
 *       {@code W3_SINGLE}, {@code W3_BULK}, {@code TIMEOUT_MS}.
 *   <li>Baton's own knobs (so that {@code tune.sh} can sweep them):
 *       <ul>
 *         <li>{@code BATON_CONCURRENCY} [the graphile adapter's: {@code GW_CONCURRENCY}, else 24]:
 *             the concurrency of the one queue the working client works. A queue has to be given
 *             one ({@code queue(name)} alone means 16); the default is the one the harness gives
 *             graphile-worker in the same run, so the default row compares like with like. Setting
 *             it makes the run a tuned one ({@link #configuration()}).
 *         <li>{@code BATON_POOL} [10]: the HikariCP pool of the client, fixed size. The handlers
 *             here never touch the database, so, as docs/concurrency.md says, the client needs
 *             about four connections (claims, completer, heartbeat, maintenance) plus the
 *             notifier's one; plus the enqueueing thread and some slack.
 *         <li>{@code BATON_ENQUEUE_VIA} [same]: W2 only. {@code same}: jobs are enqueued by the
 *             working client itself, whose producer is woken locally as the enqueue returns (the
 *             process is its own producer, as the contract describes). {@code client}: by a second
 *             Baton client in the same process, on its own pool, that works no queue; the working
 *             client then learns of each job only through LISTEN/NOTIFY (or the poll), as it would
 *             from a separate web process. Registered as its own label, like the harness's {@code
 *             dbscheduler-client}. {@code process}: by {@link W2ProducerProcess}, a JVM of its own
 *             started by the adapter (same java, same class path), so the enqueuing side shares
 *             nothing with the worker but the database: a web process beside a worker process.
 *         <li>{@code BATON_BULK_CHUNK} [0 = one call]: W1 bulk enqueue in chunks of this many jobs
 *             per {@code enqueueMany} call. Default: one call with all jobs, as the peers do.
 *         <li>{@code BATON_KEEP_COMPLETED} [true]: false sets {@link
 *             BatonConfig.Builder#completedRetention} to zero, so a completion deletes its job's
 *             row (counted in {@code job_completions}) instead of marking it completed, as
 *             graphile-worker's completion does.
 *         <li>{@code BATON_CLAIM_ON_ENQUEUE} [true]: the working client's {@link
 *             BatonConfig.Builder#claimOnEnqueue(boolean)}. With {@code BATON_ENQUEUE_VIA=same}
 *             (W2), true lets an enqueue with a slot free claim its job in the insert; false
 *             measures the NOTIFY-free local wake-up and a claim statement instead.
 *         <li>{@code BATON_PREFETCH} [unset: the library's adaptive claim depth]: the working
 *             client's {@link BatonConfig.Builder#prefetch(int)}, a fixed number of jobs its queue
 *             claims ahead of its free slots.
 *         <li>{@code BATON_BATCH_HANDLER} [0 = a one-job handler]: W1 only; n &gt; 0 works the
 *             no-op jobs with a {@link dev.baton.BatchJobHandler} of batches of up to n (one call
 *             for the jobs ready together, each job still claimed, fenced and finished on its own).
 *       </ul>
 * </ul>
 *
 * <p>Everything else is {@link BatonConfig#defaults()}: schema {@code baton}, lease 30 s, heartbeat
 * 10 s, poll 1 s, maintenance every 1 s, completer batch 2,000 and flush delay 2 ms, virtual
 * threads only on Java 21+.
 */
record HarnessSettings(
    String jdbcUrl,
    String workload,
    int round,
    int w1N,
    int w1Warm,
    int w2N,
    int w2Rate,
    int w2Warm,
    int w2IdleMs,
    int w3Single,
    int w3Bulk,
    long timeoutMs,
    int concurrency,
    int poolSize,
    String enqueueVia,
    int bulkChunk,
    boolean claimOnEnqueue,
    boolean keepCompleted,
    Integer prefetch,
    int batchHandler,
    List<String> tunedBy) {

  /** Baton's schema: the default one. The database is created fresh for every run. */
  static final String SCHEMA = BatonConfig.DEFAULT_SCHEMA;

  /**
   * The graphile-worker adapter's concurrency when {@code GW_CONCURRENCY} is unset (the harness's
   * js/adapters/graphile.mjs).
   */
  static final int GRAPHILE_CONCURRENCY = 24;

  /** The queue the working client works (EnqueueOptions' default queue). */
  static final String QUEUE = "default";

  /** Reads the environment; throws {@link IllegalArgumentException} on a bad value. */
  static HarnessSettings fromEnvironment() {
    String url = env("JDBC_URL", null);
    if (url == null) {
      url =
          "jdbc:postgresql://"
              + env("PGHOST", "127.0.0.1")
              + ":"
              + env("PGPORT", "5432")
              + "/"
              + env("PGDATABASE", "postgres")
              + "?user="
              + env("PGUSER", "bench")
              + "&password="
              + env("PGPASSWORD", "bench");
    }
    String via = env("BATON_ENQUEUE_VIA", "same");
    if (!via.equals("same") && !via.equals("client") && !via.equals("process")) {
      throw new IllegalArgumentException(
          "BATON_ENQUEUE_VIA must be same, client or process, got " + via);
    }
    int concurrency = envInt("BATON_CONCURRENCY", envInt("GW_CONCURRENCY", GRAPHILE_CONCURRENCY));
    String claim = env("BATON_CLAIM_ON_ENQUEUE", "true");
    if (!claim.equals("true") && !claim.equals("false")) {
      throw new IllegalArgumentException(
          "BATON_CLAIM_ON_ENQUEUE must be true or false, got " + claim);
    }
    String keep = env("BATON_KEEP_COMPLETED", "true");
    if (!keep.equals("true") && !keep.equals("false")) {
      throw new IllegalArgumentException("BATON_KEEP_COMPLETED must be true or false, got " + keep);
    }
    return new HarnessSettings(
        url,
        env("WORKLOAD", "w1"),
        envInt("ROUND", 1),
        envInt("W1_N", 20_000),
        envInt("W1_WARM", 2_000),
        envInt("W2_N", 2_000),
        envInt("W2_RATE", 100),
        envInt("W2_WARM", 200),
        envInt("W2_IDLE_MS", 3_000),
        envInt("W3_SINGLE", 2_000),
        envInt("W3_BULK", 10_000),
        envInt("TIMEOUT_MS", 120_000),
        concurrency,
        envInt("BATON_POOL", 10),
        via,
        envInt("BATON_BULK_CHUNK", 0),
        Boolean.parseBoolean(claim),
        Boolean.parseBoolean(keep),
        env("BATON_PREFETCH", null) == null ? null : envInt("BATON_PREFETCH", 0),
        envInt("BATON_BATCH_HANDLER", 0),
        tunedBy(claim, keep));
  }

  /**
   * What this run sets beyond the library's defaults and the graphile-equal concurrency: the
   * settings that make it a tuned row rather than the default one.
   */
  private static List<String> tunedBy(String claimOnEnqueue, String keepCompleted) {
    List<String> t = new ArrayList<>();
    if (env("BATON_CONCURRENCY", null) != null) {
      t.add("concurrency " + envInt("BATON_CONCURRENCY", 0));
    }
    if (env("BATON_PREFETCH", null) != null) {
      t.add("prefetch " + envInt("BATON_PREFETCH", 0));
    }
    if (envInt("BATON_BATCH_HANDLER", 0) > 0) {
      t.add("batch handler of up to " + envInt("BATON_BATCH_HANDLER", 0));
    }
    if (keepCompleted.equals("false")) {
      t.add("completed rows deleted");
    }
    if (claimOnEnqueue.equals("false")) {
      t.add("claimOnEnqueue false");
    }
    List<String> jvm = ManagementFactory.getRuntimeMXBean().getInputArguments();
    if (!jvm.isEmpty()) {
      t.add("JVM flags " + String.join(" ", jvm));
    }
    return List.copyOf(t);
  }

  /**
   * {@code default} when the working client runs {@link BatonConfig#defaults()} with only its
   * queue's concurrency set, equal to graphile-worker's in the same run, on default JVM flags; else
   * {@code tuned: } and what was set. The pool size, the enqueue path and the bulk chunking are the
   * adapter's, not Baton settings, and do not count.
   */
  String configuration() {
    return tunedBy.isEmpty()
        ? "default (BatonConfig defaults, concurrency " + concurrency + " as graphile-worker's)"
        : "tuned: " + String.join(", ", tunedBy);
  }

  /** A fixed-size HikariCP pool (minimum idle = maximum, as HikariCP recommends). */
  HikariDataSource pool(String name, int size) {
    HikariConfig cfg = new HikariConfig();
    cfg.setJdbcUrl(jdbcUrl);
    cfg.setPoolName(name);
    cfg.setMaximumPoolSize(size);
    cfg.setMinimumIdle(size);
    return new HikariDataSource(cfg);
  }

  /**
   * The config of the working client: the defaults plus the one queue it works. Nothing else is
   * tuned, but for {@code BATON_KEEP_COMPLETED=false}: completedRetention zero, so completions
   * delete their rows (and count them in job_completions).
   */
  BatonConfig workerConfig() {
    BatonConfig.Builder b =
        BatonConfig.builder()
            .schema(SCHEMA)
            .queue(QUEUE, concurrency)
            .claimOnEnqueue(claimOnEnqueue);
    if (!keepCompleted) {
      b.completedRetention(Duration.ZERO);
    }
    if (prefetch != null) {
      b.prefetch(prefetch);
    }
    return b.build();
  }

  /**
   * The config of a client that only enqueues (W3, and W2's separate producer): the defaults, plus
   * the kinds it may enqueue without handling them (Baton refuses unknown kinds by default).
   */
  BatonConfig enqueueOnlyConfig() {
    return BatonConfig.builder()
        .schema(SCHEMA)
        .knownKinds(BenchJobs.Noop.class, BenchJobs.Ping.class)
        .build();
  }

  /** The wake-up mechanism, for the report. */
  String wakeup() {
    BatonConfig d = BatonConfig.defaults();
    String poll = d.pollInterval().toMillis() + " ms poll fallback (jittered +-10%)";
    if (workload.equals("w2") && enqueueVia.equals("process")) {
      return "LISTEN/NOTIFY only (jobs enqueued by a separate producer process) + " + poll;
    }
    if (workload.equals("w2") && enqueueVia.equals("client")) {
      return "LISTEN/NOTIFY only (jobs enqueued by a second Baton client on its own pool, no local"
          + " wake-up) + "
          + poll;
    }
    return (claimOnEnqueue
            ? "claim in the insert when the enqueuing client has a slot free (claimOnEnqueue), else "
            : "")
        + "LISTEN/NOTIFY (pg_notify in the enqueue statement) + local wake-up of the enqueuing"
        + " client's own producer + "
        + poll;
  }

  /** The {@code info} object of the result line. */
  Map<String, Object> info() {
    BatonConfig w = workerConfig();
    Map<String, Object> tuning = new LinkedHashMap<>();
    tuning.put("configuration", configuration());
    tuning.put("concurrency", concurrency);
    tuning.put(
        "prefetch",
        prefetch != null
            ? prefetch
            : "adaptive, up to " + w.prefetchOf(concurrency) + " (BatonConfig default)");
    tuning.put("hikariPoolSize", poolSize);
    tuning.put("enqueueVia", workload.equals("w2") ? enqueueVia : "same");
    tuning.put("claimOnEnqueue", claimOnEnqueue);
    tuning.put(
        "completedRows",
        keepCompleted
            ? "kept (completedRetention " + w.completedRetention() + ")"
            : "deleted by the completion, counted in job_completions (completedRetention 0)");
    tuning.put(
        "bulkEnqueue",
        bulkChunk > 0 ? "enqueueMany chunks of " + bulkChunk : "one enqueueMany call");
    tuning.put("handlerThreads", virtualThreads() ? "virtual" : "platform pool (Java 17)");
    tuning.put("leaseMs", w.lease().toMillis());
    tuning.put("heartbeatMs", w.heartbeatInterval().toMillis());
    tuning.put("pollMs", w.pollInterval().toMillis());
    tuning.put("maintenanceMs", w.maintenanceInterval().toMillis());
    tuning.put("completerBatchSize", w.completerBatchSize());
    tuning.put("completerFlushDelayMs", w.completerFlushDelay().toMillis());
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", "Baton (baton-benchmarks/harness.sh)");
    m.put(
        "version",
        String.format(
            Locale.ROOT,
            "%s, %s (pgjdbc %s, HikariCP %s)",
            mavenVersion("dev.baton", "baton-core"),
            // which core was measured; the jar's (temporary) file name left out
            Bench.coreFingerprint().replaceAll(" \\(\\d+ files in [^)]*\\)", ""),
            org.postgresql.util.DriverInfo.DRIVER_VERSION,
            mavenVersion("com.zaxxer", "HikariCP")));
    m.put("wakeup", wakeup());
    m.put(
        "runtime",
        "java "
            + System.getProperty("java.version")
            + " ("
            + System.getProperty("java.vm.name")
            + ")");
    m.put("tuning", tuning);
    return m;
  }

  static boolean virtualThreads() {
    return Runtime.version().feature() >= 21;
  }

  /** The version of a jar bundled in this one, from its pom.properties, or "?". */
  static String mavenVersion(String group, String artifact) {
    String path = "/META-INF/maven/" + group + "/" + artifact + "/pom.properties";
    try (InputStream in = HarnessSettings.class.getResourceAsStream(path)) {
      if (in == null) {
        return "?";
      }
      Properties p = new Properties();
      p.load(in);
      return p.getProperty("version", "?");
    } catch (Exception e) {
      return "?";
    }
  }

  static String env(String key, String fallback) {
    String v = System.getenv(key);
    return v == null || v.isEmpty() ? fallback : v;
  }

  static int envInt(String key, int fallback) {
    String v = System.getenv(key);
    if (v == null || v.isEmpty()) {
      return fallback;
    }
    try {
      return Integer.parseInt(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " must be a whole number, got \"" + v + "\"");
    }
  }
}
