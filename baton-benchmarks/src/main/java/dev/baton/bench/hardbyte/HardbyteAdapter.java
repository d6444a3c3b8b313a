package dev.baton.bench.hardbyte;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.EnqueueOptions;
import dev.baton.JobContext;
import dev.baton.JobRequest;
import dev.baton.migrate.Migrator;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Baton as an adapter of hardbyte/postgresql-job-queue-benchmarking (its CONTRIBUTING_ADAPTERS.md,
 * "Runtime contract"): one long-running process that produces jobs at a fixed rate (or to a target
 * depth), works them with {@code WORKER_COUNT} handlers, and writes JSONL telemetry on stdout until
 * SIGTERM. Everything goes through Baton's public API: {@link Migrator#up()}, {@link
 * Baton#enqueueMany}, a handler, {@link Baton#counters()}; the default {@link BatonConfig} but the
 * schema and one queue of concurrency {@code WORKER_COUNT}. Settings: {@link HardbyteSettings}.
 *
 * <p>stdout, one JSON object per line, nothing else (logs go to stderr):
 *
 * <ul>
 *   <li>once, after the schema is migrated and before any job is produced, the descriptor: {@code
 *       kind: "descriptor"}, {@code system: "baton"}, {@code event_tables} ({@code <schema>.job}),
 *       {@code extensions} (none), {@code version}, {@code schema_version}, {@code db_name}, {@code
 *       started_at}, plus {@code event_indexes}, {@code instance_id} and {@code tuning};
 *   <li>at every wall-clock multiple of {@code SAMPLE_EVERY_S} (the first one a full period after
 *       the first boundary, which only sets the baseline), one record per metric, all stamped with
 *       that boundary ({@code t}, UTC, milliseconds): {@code claim_p50_ms}, {@code claim_p95_ms},
 *       {@code claim_p99_ms} (enqueue call to handler start, over the last 30 s; 0 when no job was
 *       picked up in it), {@code enqueue_rate} (jobs whose {@code enqueueMany} returned, per second
 *       since the previous sample), {@code completion_rate} (completions Baton wrote, per second),
 *       and, from instance 0 only as the other adapters do, {@code queue_depth} (available jobs of
 *       the queue, polled every 200 ms), {@code running_depth} and {@code producer_target_rate}.
 * </ul>
 *
 * <p>On SIGTERM (or SIGINT) it stops producing, stops sampling, stops the Baton client gracefully
 * (running handlers finish, completions are written, jobs claimed ahead are handed back) and exits
 * 0; if that has not finished within {@link #SHUTDOWN_BUDGET} it exits 0 anyway (jobs still held
 * are rescued when their lease expires).
 */
public final class HardbyteAdapter {
  /** The system name in the descriptor and in every sample. */
  public static final String SYSTEM = "baton";

  /** How long after SIGTERM the process exits at the latest; the protocol allows 5 s. */
  static final Duration SHUTDOWN_BUDGET = Duration.ofSeconds(4);

  /** How often the available and running counts are read. */
  static final Duration DEPTH_POLL_INTERVAL = Duration.ofMillis(200);

  private static final Duration RATE_FILE_INTERVAL = Duration.ofMillis(250);
  private static final Duration DEPTH_TARGET_WAIT = Duration.ofMillis(10);
  private static final Duration RETRY_AFTER_FAILURE = Duration.ofMillis(100);

  /** What {@link #run} prints for {@code --help}, or for an argument it does not know. */
  public static final String USAGE =
      """
      usage: java -cp baton-benchmarks.jar dev.baton.bench.BenchMain hardbyte
        Baton as an adapter of hardbyte/postgresql-job-queue-benchmarking: produces and works jobs,
        writes the protocol's JSONL on stdout until SIGTERM. Settings come from the environment:
          DATABASE_URL       postgres://user:password@host:port/db (or a jdbc:postgresql: URL)
          SCENARIO           long_horizon (the only one)
          PRODUCER_MODE      fixed | depth-target            [fixed]
          PRODUCER_RATE      jobs/s in fixed mode            [800]
          TARGET_DEPTH       available jobs in depth-target  [1000]
          WORKER_COUNT       handlers (queue concurrency)    [32]
          JOB_PAYLOAD_BYTES  args size                       [256]
          JOB_WORK_MS        handler sleep                   [1]
          SAMPLE_EVERY_S     sample cadence, seconds         [5]
          PRODUCER_BATCH_MAX, PRODUCER_BATCH_MS [128, 10], PRODUCER_PACING adapter | harness,
          PRODUCER_RATE_CONTROL_FILE, BENCH_INSTANCE_ID [0], BATON_SCHEMA [baton], BATON_POOL [10]
      """;

  private static final DateTimeFormatter ISO_MILLIS =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HardbyteSettings s;
  private final PrintStream out;
  private final InputStream in;
  private final String startedAt = ISO_MILLIS.format(Instant.now());
  private final ClaimLatency latency;
  private final CountDownLatch stopRequested = new CountDownLatch(1);
  private final CountDownLatch finished = new CountDownLatch(1);
  private final AtomicLong enqueued = new AtomicLong();
  private final AtomicReference<Depth> depth = new AtomicReference<>(new Depth(0, 0, 0, 0));
  private final ErrorLog producerErrors = new ErrorLog("enqueue failed");
  private final ErrorLog depthErrors = new ErrorLog("queue depth poll failed");
  private final List<Thread> threads = new ArrayList<>();
  private volatile int exitCode;
  private volatile HikariDataSource dataSource;
  private volatile Baton baton;
  private volatile int targetRate;
  private String padding = "";
  private long seq;
  private long rateReadAt = Long.MIN_VALUE;
  private BlockingQueue<Integer> tokens;
  private volatile boolean tokensEnded;

  /**
   * The available and running counts of the last poll, and the producer's and the client's counters
   * read just before it: the producer's depth-target mode estimates the depth since.
   */
  private record Depth(long available, long running, long enqueuedBefore, long claimedBefore) {}

  private HardbyteAdapter(HardbyteSettings s, PrintStream out, InputStream in) {
    this.s = s;
    this.out = out;
    this.in = in;
    this.latency = new ClaimLatency(s.sampleEvery());
    this.targetRate =
        s.producerMode() == HardbyteSettings.ProducerMode.FIXED ? s.producerRate() : 0;
  }

  /**
   * Runs the adapter until SIGTERM (or SIGINT), with settings from {@code env}; the entry point for
   * {@code baton bench} and {@code BenchMain hardbyte}. Returns the exit code for the caller to
   * pass to {@link System#exit}: 0 after a stop by signal, 1 when the adapter could not start (the
   * database unreachable, the migration failed), 2 on a bad argument or setting. When a signal
   * stops it, the JVM is already exiting: a shutdown hook waits for the orderly stop (at most
   * {@link #SHUTDOWN_BUDGET}) and then ends the process with status 0 itself.
   *
   * @param args {@code --help}, or nothing
   * @param env the environment, normally {@link System#getenv()}
   */
  public static int run(String[] args, Map<String, String> env) {
    for (String a : args) {
      if (a.equals("--help") || a.equals("-h")) {
        System.err.print(USAGE);
        return 0;
      }
      System.err.println("baton hardbyte: unknown argument " + a);
      System.err.print(USAGE);
      return 2;
    }
    HardbyteSettings s;
    try {
      s = HardbyteSettings.fromEnvironment(env);
    } catch (IllegalArgumentException e) {
      System.err.println("baton hardbyte: " + e.getMessage());
      return 2;
    }
    if (!s.scenario().equals(HardbyteSettings.LONG_HORIZON)) {
      System.err.println(
          "baton hardbyte: SCENARIO must be "
              + HardbyteSettings.LONG_HORIZON
              + " (the only scenario this adapter implements), got \""
              + s.scenario()
              + "\"");
      return 2;
    }
    return new HardbyteAdapter(s, System.out, System.in).runUntilSignalled();
  }

  /** {@code java -cp baton-benchmarks.jar dev.baton.bench.hardbyte.HardbyteAdapter}. */
  public static void main(String[] args) {
    System.exit(run(args, System.getenv()));
  }

  private int runUntilSignalled() {
    Thread hook = new Thread(this::onShutdown, "baton-bench-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    int rc = runUntilStopped();
    exitCode = rc;
    finished.countDown();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // The JVM is exiting (a signal): the hook ends the process with rc.
    }
    return rc;
  }

  /** The shutdown hook: asks for the stop, waits for it, ends the process with its code. */
  private void onShutdown() {
    stopRequested.countDown();
    boolean done;
    try {
      done = finished.await(SHUTDOWN_BUDGET.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      done = false;
    }
    if (!done) {
      System.err.println(
          "[baton hardbyte] stop took longer than "
              + SHUTDOWN_BUDGET.toMillis()
              + " ms; exiting anyway (jobs still held are rescued when their lease expires)");
    }
    out.flush();
    System.err.flush();
    // A hook that returns leaves the JVM to exit with 143 after SIGTERM; the protocol asks for 0.
    Runtime.getRuntime().halt(done ? exitCode : 0);
  }

  private int runUntilStopped() {
    int rc = 0;
    try {
      start();
      stopRequested.await();
    } catch (Exception e) {
      if (stopRequested.getCount() > 0) {
        System.err.println("[baton hardbyte] cannot run: " + e);
        e.printStackTrace();
        rc = 1;
      }
    } finally {
      stop();
    }
    return rc;
  }

  private void start() throws Exception {
    System.err.printf(
        "[baton hardbyte] %s, database %s, schema %s: %s%n",
        s.scenario(), s.dbName(), s.schema(), s.tuning());
    HikariConfig cfg = new HikariConfig();
    cfg.setJdbcUrl(s.jdbcUrl());
    cfg.setPoolName("baton-bench");
    cfg.setMaximumPoolSize(s.poolSize());
    cfg.setMinimumIdle(s.poolSize());
    dataSource = new HikariDataSource(cfg);
    Migrator migrator = new Migrator(dataSource, s.schema());
    migrator.up();
    padding =
        "x"
            .repeat(
                Math.max(
                    0,
                    s.payloadBytes()
                        - JSON.writeValueAsString(new LongHorizonJob(0, nowMicros(), ""))
                            .length()));
    emit(descriptor(migrator.currentVersion()));
    if (stopRequested.getCount() == 0) {
      return;
    }
    baton =
        Baton.builder(dataSource)
            .config(
                BatonConfig.builder()
                    .schema(s.schema())
                    .queue(EnqueueOptions.DEFAULT_QUEUE, s.workerCount())
                    .build())
            .handler(LongHorizonJob.class, this::work)
            .build();
    baton.start();
    if (s.harnessPacing() && s.producerMode() == HardbyteSettings.ProducerMode.FIXED) {
      tokens = new LinkedBlockingQueue<>();
      thread("baton-bench-pacer-stdin", this::readTokens);
    }
    thread("baton-bench-depth", this::pollDepth);
    thread("baton-bench-sampler", this::sample);
    thread("baton-bench-producer", this::produce);
  }

  private void stop() {
    stopRequested.countDown();
    for (Thread t : threads) {
      if (!t.getName().equals("baton-bench-pacer-stdin")) { // blocked in a read: left to exit
        join(t, Duration.ofSeconds(1));
      }
    }
    Baton b = baton;
    if (b != null) {
      b.stop(Duration.ofSeconds(2));
      System.err.println("[baton hardbyte] stopped: " + b.counters());
    }
    HikariDataSource ds = dataSource;
    if (ds != null) {
      ds.close();
    }
  }

  private Map<String, Object> descriptor(int schemaVersion) {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("kind", "descriptor");
    d.put("system", SYSTEM);
    d.put("event_tables", List.of(s.schema() + ".job"));
    d.put(
        "event_indexes",
        List.of(
            s.schema() + ".job_pkey",
            s.schema() + ".job_claim_idx",
            s.schema() + ".job_running_idx"));
    d.put("extensions", List.of());
    d.put("version", "baton-core " + batonVersion());
    d.put("schema_version", Integer.toString(schemaVersion));
    d.put("db_name", s.dbName());
    d.put("started_at", startedAt);
    d.put("instance_id", s.instanceId());
    d.put("tuning", s.tuning());
    d.put(
        "runtime",
        "java "
            + System.getProperty("java.version")
            + " ("
            + System.getProperty("java.vm.name")
            + ")");
    return d;
  }

  // ---------------------------------------------------------------- the job

  private void work(JobContext ctx, LongHorizonJob job) throws InterruptedException {
    latency.record(nowMicros() - job.producedAtMicros()); // first action: the pickup
    if (!s.jobWork().isZero()) {
      Thread.sleep(s.jobWork().toMillis()); // the synthetic work of JOB_WORK_MS
    }
  }

  // ---------------------------------------------------------------- producer

  private void produce() {
    long lastCredit = System.nanoTime();
    double credit = 0;
    while (stopRequested.getCount() > 0) {
      int n;
      if (s.producerMode() == HardbyteSettings.ProducerMode.DEPTH_TARGET) {
        long room = s.targetDepth() - estimatedDepth();
        if (room <= 0) {
          if (pause(DEPTH_TARGET_WAIT)) {
            return;
          }
          continue;
        }
        n = (int) Math.min(room, s.producerBatchMax());
      } else if (tokens != null && !(tokensEnded && tokens.isEmpty())) {
        // Paced by the harness: each ENQUEUE <n> line asks for n jobs now.
        targetRate = currentRate();
        Integer token;
        try {
          token = tokens.poll(100, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          return;
        }
        if (token == null) {
          continue;
        }
        n = token;
        lastCredit = System.nanoTime(); // the local pacer starts from here if stdin ends
        credit = 0;
      } else {
        // Paced locally: credit rate x the wall-clock time really elapsed (the contract's
        // normative pacing), every PRODUCER_BATCH_MS.
        int rate = currentRate();
        targetRate = rate;
        if (rate <= 0) {
          credit = 0;
          lastCredit = System.nanoTime();
          if (pause(Duration.ofMillis(100))) {
            return;
          }
          continue;
        }
        long wait = lastCredit + s.producerBatchPeriod().toNanos() - System.nanoTime();
        if (wait > 0 && pause(Duration.ofNanos(wait))) {
          return;
        }
        long now = System.nanoTime();
        credit += rate * ((now - lastCredit) / 1e9);
        lastCredit = now;
        n = (int) Math.min(Integer.MAX_VALUE, (long) credit);
        credit -= n;
        if (n == 0) {
          continue;
        }
      }
      enqueue(n);
    }
  }

  /** Enqueues {@code n} jobs in calls of at most {@code PRODUCER_BATCH_MAX}. */
  private void enqueue(int n) {
    for (int done = 0; done < n && stopRequested.getCount() > 0; ) {
      int k = Math.min(n - done, s.producerBatchMax());
      long at = nowMicros();
      List<JobRequest> batch = new ArrayList<>(k);
      for (int i = 0; i < k; i++) {
        batch.add(JobRequest.of(new LongHorizonJob(seq++, at, padding)));
      }
      done += k;
      try {
        baton.enqueueMany(batch);
        enqueued.addAndGet(k);
      } catch (RuntimeException e) {
        // As the other adapters: the jobs are lost (offered, not enqueued), the pace goes on.
        producerErrors.log(e);
        if (pause(RETRY_AFTER_FAILURE)) {
          return;
        }
      }
    }
  }

  /** The rate to offer now: {@code PRODUCER_RATE}, or the control file's (read every 250 ms). */
  private int currentRate() {
    if (s.rateControlFile() == null) {
      return s.producerRate();
    }
    long now = System.nanoTime();
    if (rateReadAt == Long.MIN_VALUE || now - rateReadAt >= RATE_FILE_INTERVAL.toNanos()) {
      rateReadAt = now;
      try {
        double rate = Double.parseDouble(Files.readString(s.rateControlFile()).trim());
        return (int) Math.max(0, Math.min(Integer.MAX_VALUE, rate));
      } catch (IOException | NumberFormatException e) {
        return targetRate; // unreadable for now (being rewritten): keep the last rate
      }
    }
    return targetRate;
  }

  /** Reads the harness's {@code ENQUEUE <n>} lines from stdin until it ends. */
  private void readTokens() {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        line = line.trim();
        if (line.startsWith("ENQUEUE ")) {
          try {
            int n = Integer.parseInt(line.substring("ENQUEUE ".length()).trim());
            if (n > 0) {
              tokens.add(n);
            }
          } catch (NumberFormatException e) {
            System.err.println("[baton hardbyte] ignoring stdin line: " + line);
          }
        }
      }
    } catch (IOException e) {
      System.err.println("[baton hardbyte] stdin: " + e);
    }
    tokensEnded = true; // the producer paces itself from now on
  }

  // ---------------------------------------------------------------- depth

  private void pollDepth() {
    String sql =
        """
        SELECT (SELECT count(*) FROM %1$s.job WHERE state = 'available' AND queue = ?),
               (SELECT count(*) FROM %1$s.job WHERE state = 'running' AND queue = ?)
        """
            .formatted("\"" + s.schema() + "\"");
    do {
      long enqueuedBefore = enqueued.get();
      long claimedBefore = baton.counters().claimed();
      try (Connection c = dataSource.getConnection();
          PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setString(1, EnqueueOptions.DEFAULT_QUEUE);
        ps.setString(2, EnqueueOptions.DEFAULT_QUEUE);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          depth.set(new Depth(rs.getLong(1), rs.getLong(2), enqueuedBefore, claimedBefore));
        }
      } catch (Exception e) {
        depthErrors.log(e);
      }
    } while (!pause(DEPTH_POLL_INTERVAL));
  }

  /** The last polled depth, plus the jobs enqueued and less those claimed since. */
  private long estimatedDepth() {
    Depth d = depth.get();
    long claimed = baton.counters().claimed();
    return Math.max(
        0, d.available() + (enqueued.get() - d.enqueuedBefore()) - (claimed - d.claimedBefore()));
  }

  // ---------------------------------------------------------------- samples

  /** The counters a rate is computed from. */
  private record Totals(long nanos, long enqueued, long completed) {}

  private Totals totals() {
    return new Totals(System.nanoTime(), enqueued.get(), baton.counters().completed());
  }

  private void sample() {
    long every = s.sampleEvery().toMillis();
    long tick = (System.currentTimeMillis() / every + 1) * every;
    if (!sleepUntil(tick)) {
      return;
    }
    Totals last = totals(); // the first boundary sets the baseline of the first rates
    while (true) {
      tick += every;
      if (!sleepUntil(tick)) {
        return;
      }
      long late = System.currentTimeMillis() - tick;
      if (late >= every) {
        tick += late / every * every; // woke after later boundaries (a pause): report the last one
      }
      Totals now = totals();
      emitSamples(tick, now, last);
      last = now;
    }
  }

  /** Waits until the wall clock reads {@code epochMillis}; false if a stop came first. */
  private boolean sleepUntil(long epochMillis) {
    long wait;
    while ((wait = epochMillis - System.currentTimeMillis()) > 0) {
      if (pause(Duration.ofMillis(wait))) {
        return false;
      }
    }
    return true;
  }

  private void emitSamples(long tickMillis, Totals now, Totals last) {
    double dt = Math.max(0.001, (now.nanos() - last.nanos()) / 1e9);
    ClaimLatency.Snapshot l = latency.roll();
    String t = ISO_MILLIS.format(Instant.ofEpochMilli(tickMillis));
    double latencyWindow = latency.window().toSeconds();
    double rateWindow = s.sampleEvery().toSeconds();
    List<Map<String, Object>> records = new ArrayList<>();
    records.add(sample(t, "claim_p50_ms", l.p50(), latencyWindow));
    records.add(sample(t, "claim_p95_ms", l.p95(), latencyWindow));
    records.add(sample(t, "claim_p99_ms", l.p99(), latencyWindow));
    records.add(sample(t, "enqueue_rate", (now.enqueued() - last.enqueued()) / dt, rateWindow));
    records.add(
        sample(t, "completion_rate", (now.completed() - last.completed()) / dt, rateWindow));
    if (s.instanceId() == 0) {
      // Queue-wide observations: one replica reports them, as in the other adapters.
      Depth d = depth.get();
      records.add(sample(t, "queue_depth", d.available(), 0));
      records.add(sample(t, "running_depth", d.running(), 0));
      records.add(sample(t, "producer_target_rate", targetRate, 0));
    }
    emit(records);
  }

  private Map<String, Object> sample(String t, String metric, double value, double windowS) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("t", t);
    r.put("system", SYSTEM);
    r.put("instance_id", s.instanceId());
    r.put("kind", "adapter");
    r.put("subject_kind", "adapter");
    r.put("subject", "");
    r.put("metric", metric);
    r.put("value", value);
    r.put("window_s", windowS);
    return r;
  }

  // ---------------------------------------------------------------- plumbing

  private void emit(Map<String, Object> record) {
    emit(List.of(record));
  }

  /** Writes records as lines on stdout, together, flushed. */
  private void emit(List<Map<String, Object>> records) {
    StringBuilder sb = new StringBuilder();
    try {
      for (Map<String, Object> r : records) {
        sb.append(JSON.writeValueAsString(r)).append('\n');
      }
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write a sample as JSON", e);
    }
    synchronized (out) {
      out.print(sb);
      out.flush();
    }
  }

  private void thread(String name, Runnable body) {
    Thread t =
        new Thread(
            () -> {
              try {
                body.run();
              } catch (RuntimeException e) {
                if (stopRequested.getCount() > 0) {
                  System.err.println("[baton hardbyte] " + name + " failed: " + e);
                  e.printStackTrace();
                }
              }
            },
            name);
    t.setDaemon(true);
    threads.add(t);
    t.start();
  }

  /** Waits {@code d} unless a stop is requested; returns whether one was. */
  private boolean pause(Duration d) {
    try {
      return stopRequested.await(d.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return true;
    }
  }

  private static void join(Thread t, Duration timeout) {
    try {
      t.join(timeout.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Wall-clock microseconds since the epoch. */
  static long nowMicros() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
  }

  /** baton-core's version from its pom.properties (in the benchmark jar), else "unknown". */
  private static String batonVersion() {
    try (InputStream p =
        Baton.class.getResourceAsStream("/META-INF/maven/dev.baton/baton-core/pom.properties")) {
      if (p != null) {
        Properties props = new Properties();
        props.load(p);
        return props.getProperty("version", "unknown");
      }
    } catch (IOException e) {
      // fall through
    }
    String v = Baton.class.getPackage().getImplementationVersion();
    return v != null ? v : "unknown";
  }

  /** A repeated failure, written to stderr at most every 5 s with the count of those left out. */
  private static final class ErrorLog {
    private static final long EVERY_NANOS = TimeUnit.SECONDS.toNanos(5);
    private final String what;
    private long lastNanos;
    private long leftOut;
    private boolean logged;

    ErrorLog(String what) {
      this.what = what;
    }

    synchronized void log(Exception e) {
      long now = System.nanoTime();
      if (logged && now - lastNanos < EVERY_NANOS) {
        leftOut++;
        return;
      }
      System.err.println(
          "[baton hardbyte] "
              + what
              + ": "
              + e
              + (leftOut > 0 ? " (and " + leftOut + " more since the last report)" : ""));
      logged = true;
      lastNanos = now;
      leftOut = 0;
    }
  }
}
