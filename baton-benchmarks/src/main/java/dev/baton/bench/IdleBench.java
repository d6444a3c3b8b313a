package dev.baton.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.EnqueueOptions;
import dev.baton.cli.bench.BenchDatabase;
import dev.baton.cli.bench.BenchJobs;
import dev.baton.cli.bench.Figures;
import dev.baton.cli.bench.Samples;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * What an idle fleet costs the server, and how fast it still picks a job up: for each shape {@code
 * N x Q}, N nodes (Baton clients in this JVM, each with a pool of its own, its own node id, LISTEN
 * connection, producers, heartbeater and leader candidacy, as separate processes would have) each
 * working the same Q queues, no jobs. After a settling period it counts, over a measured window,
 * the server's statements (from {@code pg_stat_statements} when the server has it loaded, which the
 * embedded server does), its committed transactions ({@code pg_stat_database.xact_commit}) and the
 * CPU time of the server's processes (from {@code /proc}, when the server runs on this machine),
 * and then enqueues jobs one at a time, from a separate client, each on a random one of the Q
 * queues, and reports pickup latency (handler start minus the time before the enqueue call).
 *
 * <pre>
 * java -jar baton-benchmarks/target/baton-benchmarks.jar idle [--shapes 1x1,10x1,10x10,10x100]
 *     [--seconds 15] [--settle-s 5] [--pickups 40] [--poll-ms 1000] [--poll-only]
 *     [--pool 4] [--database-url URL]
 * </pre>
 *
 * <p>Counts are robust on a loaded machine; the CPU figure is not, and on a shared server ({@code
 * --database-url}) both include other sessions' work. Use the embedded server for figures.
 */
final class IdleBench {
  static final String USAGE =
      """
      usage: java -jar baton-benchmarks/target/baton-benchmarks.jar idle [options]
        --shapes NxQ[,NxQ...]  nodes x queues per run; default 1x1,10x1,10x10,10x100
        --seconds S            measured idle window per shape; default 15
        --settle-s S           idle time before the window (start-up claims); default 5
        --pickups N            jobs enqueued one at a time after the window; default 40
        --poll-ms MS           the nodes' poll interval; default 1000
        --poll-only            the nodes do not LISTEN (pickup waits for the poll)
        --pool N               connections per node's pool; default 4
        --database-url URL     a server to use instead of an embedded one
      """;

  private record Shape(int nodes, int queues) {
    @Override
    public String toString() {
      return nodes + "x" + queues;
    }
  }

  private record Options(
      List<Shape> shapes,
      Duration window,
      Duration settle,
      int pickups,
      Duration poll,
      boolean pollOnly,
      int pool,
      String url,
      List<String> raw) {}

  /** Counters read at the start and end of a window. */
  private record Snapshot(long nanos, long statements, long commits, long cpuTicks) {}

  private final BenchDatabase db;
  private final Options opts;
  private final Figures figures;

  private IdleBench(BenchDatabase db, Options opts, Figures figures) {
    this.db = db;
    this.opts = opts;
    this.figures = figures;
  }

  /** Runs the {@code idle} command; 0 when every shape ran, 1 when one failed, 2 on bad usage. */
  static int run(List<String> args, PrintStream out, PrintStream err) {
    if (args.contains("--help")) {
      out.print(USAGE);
      return 0;
    }
    Options opts;
    try {
      opts = parse(args);
    } catch (IllegalArgumentException e) {
      err.println("baton-benchmarks: idle: " + e.getMessage());
      err.print(USAGE);
      return 2;
    }
    return ServerCommand.run(
        "idle",
        opts.url(),
        Map.of(),
        opts.raw(),
        out,
        err,
        (db, figures) -> {
          IdleBench b = new IdleBench(db, opts, figures);
          for (Shape s : opts.shapes()) {
            b.measure(s);
          }
        });
  }

  private static Options parse(List<String> args) {
    List<Shape> shapes =
        List.of(new Shape(1, 1), new Shape(10, 1), new Shape(10, 10), new Shape(10, 100));
    Duration window = Duration.ofSeconds(15);
    Duration settle = Duration.ofSeconds(5);
    int pickups = 40;
    Duration poll = BatonConfig.DEFAULT_POLL_INTERVAL;
    boolean pollOnly = false;
    int pool = 4;
    String url = null;
    for (int i = 0; i < args.size(); i++) {
      String name = args.get(i);
      if (name.equals("--poll-only")) {
        pollOnly = true;
        continue;
      }
      if (i + 1 >= args.size()) {
        throw new IllegalArgumentException("option " + name + " needs a value");
      }
      String value = args.get(++i);
      switch (name) {
        case "--shapes" -> shapes = shapes(value);
        case "--seconds" -> window = Duration.ofSeconds(ServerCommand.positive(name, value));
        case "--settle-s" -> settle = Duration.ofSeconds(ServerCommand.positive(name, value));
        case "--pickups" -> pickups = ServerCommand.positive(name, value);
        case "--poll-ms" -> poll = Duration.ofMillis(ServerCommand.positive(name, value));
        case "--pool" -> pool = ServerCommand.positive(name, value);
        case "--database-url" -> url = value;
        default -> throw new IllegalArgumentException("unknown option \"" + name + "\"");
      }
    }
    return new Options(shapes, window, settle, pickups, poll, pollOnly, pool, url, args);
  }

  private static List<Shape> shapes(String value) {
    List<Shape> out = new ArrayList<>();
    for (String w : value.split(",")) {
      String[] nq = w.trim().split("x");
      if (nq.length != 2) {
        throw new IllegalArgumentException(
            "option --shapes: expected NODESxQUEUES[,...] such as 10x100, got \"" + value + "\"");
      }
      out.add(
          new Shape(
              ServerCommand.positive("--shapes", nq[0]),
              ServerCommand.positive("--shapes", nq[1])));
    }
    return out;
  }

  private void measure(Shape shape) throws Exception {
    System.err.printf(Locale.ROOT, "[bench] idle %s: starting%n", shape);
    List<HikariDataSource> pools = new ArrayList<>();
    List<Baton> nodes = new ArrayList<>();
    ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
    AtomicLong picked = new AtomicLong();
    HikariDataSource adminPool = pool("idle-admin", 2);
    pools.add(adminPool);
    try (Connection mon = db.connect()) {
      String schema = db.newMigratedSchema(adminPool, "idle_" + shape);
      boolean statementStats = ServerCommand.enableStatementStats(mon);
      long serverPid = postmasterPid(mon);
      for (int n = 0; n < shape.nodes(); n++) {
        HikariDataSource ds = pool("idle-node-" + n, opts.pool());
        pools.add(ds);
        BatonConfig.Builder cfg =
            BatonConfig.builder()
                .schema(schema)
                .nodeId("idle-" + shape + "-" + n)
                .pollInterval(opts.poll())
                .pollOnly(opts.pollOnly());
        for (int q = 0; q < shape.queues(); q++) {
          cfg.queue(queue(q), 1);
        }
        Baton node =
            Baton.builder(ds)
                .config(cfg.build())
                .handler(
                    BenchJobs.Ping.class,
                    (ctx, p) -> {
                      latencies.add(System.nanoTime() - p.enqueuedNanos());
                      picked.incrementAndGet();
                    })
                .build();
        nodes.add(node);
      }
      for (Baton node : nodes) {
        node.start();
      }
      Thread.sleep(opts.settle().toMillis());
      if (statementStats) {
        // Only this window's statements in the list of the busiest.
        BenchDatabase.queryLong(mon, "SELECT count(*) FROM pg_stat_statements_reset()");
      }
      Snapshot a = snapshot(mon, statementStats, serverPid);
      Thread.sleep(opts.window().toMillis());
      Snapshot b = snapshot(mon, statementStats, serverPid);
      double secs = (b.nanos() - a.nanos()) / 1e9;
      String label = "idle " + shape;
      figures.add(
          label,
          String.format(
              Locale.ROOT,
              "%s statements/s, %.1f commits/s, server CPU %s over %.1f s (%d nodes x %d queues,"
                  + " poll %d ms%s)",
              statementStats
                  ? String.format(Locale.ROOT, "%.1f", (b.statements() - a.statements()) / secs)
                  : "?",
              (b.commits() - a.commits()) / secs,
              serverPid > 0
                  ? String.format(
                      Locale.ROOT,
                      "%.1f%% of a core",
                      100.0 * (b.cpuTicks() - a.cpuTicks()) / 100.0 / secs)
                  : "? (server not on this machine)",
              secs,
              shape.nodes(),
              shape.queues(),
              opts.poll().toMillis(),
              opts.pollOnly() ? ", poll only" : ""));
      if (statementStats) {
        figures.add("", "busiest statements: " + topStatements(mon));
      }
      Baton enqueuer =
          Baton.builder(adminPool)
              .config(
                  BatonConfig.builder()
                      .schema(schema)
                      .knownKinds(BenchJobs.Ping.class)
                      .maintenanceEnabled(false)
                      .build())
              .build();
      for (int i = 0; i < opts.pickups(); i++) {
        String q = queue(ThreadLocalRandom.current().nextInt(shape.queues()));
        long before = picked.get();
        enqueuer.enqueue(
            new BenchJobs.Ping(System.nanoTime(), 0, i), EnqueueOptions.builder().queue(q).build());
        awaitPicked(picked, before + 1);
        // A random gap, so that pickups do not line up with the poll.
        Thread.sleep(50 + ThreadLocalRandom.current().nextInt(100));
      }
      figures.add(
          "",
          "pickup, a job on a random queue of "
              + shape.queues()
              + ": "
              + Samples.ofNanos(latencies).summary());
    } finally {
      for (Baton node : nodes) {
        node.stop(Duration.ofSeconds(10));
      }
      for (HikariDataSource ds : pools) {
        ds.close();
      }
    }
  }

  private static String queue(int q) {
    return "q" + q;
  }

  private HikariDataSource pool(String name, int size) {
    HikariConfig cfg = new HikariConfig();
    cfg.setJdbcUrl(db.jdbcUrl());
    cfg.setPoolName(name);
    cfg.setMaximumPoolSize(size);
    cfg.setMinimumIdle(1);
    return new HikariDataSource(cfg);
  }

  private static void awaitPicked(AtomicLong picked, long target) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (picked.get() < target) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("idle: a job was not picked up within 30 s");
      }
      Thread.sleep(1);
    }
  }

  private static Snapshot snapshot(Connection c, boolean statementStats, long serverPid)
      throws SQLException {
    long statements =
        statementStats
            ? BenchDatabase.queryLong(
                c,
                "SELECT coalesce(sum(calls), 0)::bigint FROM pg_stat_statements"
                    + " WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())")
            : 0;
    // Statistics are sent by each backend at its transactions' end; read them fresh.
    long commits =
        BenchDatabase.queryLong(
            c,
            "SELECT xact_commit FROM pg_stat_get_db_xact_commit((SELECT oid FROM pg_database"
                + " WHERE datname = current_database())) AS xact_commit");
    return new Snapshot(System.nanoTime(), statements, commits, serverTicks(serverPid));
  }

  /** The five statements called most since the window began. */
  private static String topStatements(Connection c) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT calls, regexp_replace(left(query, 70), '\\s+', ' ', 'g') FROM"
                    + " pg_stat_statements ORDER BY calls DESC LIMIT 5")) {
      while (rs.next()) {
        out.add(rs.getLong(1) + " x [" + rs.getString(2) + "]");
      }
    }
    return String.join("; ", out);
  }

  /** The server's postmaster, when it runs on this machine (its /proc entry is visible). */
  private static long postmasterPid(Connection c) throws SQLException {
    long backend = BenchDatabase.queryLong(c, "SELECT pg_backend_pid()");
    try {
      String[] f = statFields(Path.of("/proc", Long.toString(backend), "stat"));
      return Long.parseLong(f[1]);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /**
   * CPU clock ticks (user + system) of the postmaster and its live children: backends, WAL writer,
   * checkpointer, autovacuum. Backends that exited are not counted; the pools keep theirs open.
   */
  private static long serverTicks(long postmaster) {
    if (postmaster <= 0) {
      return 0;
    }
    long ticks = 0;
    try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
      for (Path p : procs.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
        try {
          String[] f = statFields(p.resolve("stat"));
          long pid = Long.parseLong(p.getFileName().toString());
          if (pid == postmaster || Long.parseLong(f[1]) == postmaster) {
            ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime
          }
        } catch (IOException | RuntimeException e) {
          // the process ended meanwhile
        }
      }
    } catch (IOException e) {
      return 0;
    }
    return ticks;
  }

  /** The fields of a /proc/PID/stat after the command name: state is [0], ppid [1]. */
  private static String[] statFields(Path stat) throws IOException {
    String s = Files.readString(stat);
    return s.substring(s.lastIndexOf(')') + 2).split(" ");
  }
}
