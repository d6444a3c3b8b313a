package dev.baton.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.EnqueueOptions;
import dev.baton.JobRequest;
import dev.baton.cli.bench.BenchDatabase;
import dev.baton.cli.bench.BenchJobs;
import dev.baton.cli.bench.Figures;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Many competing nodes: for each number of queues Q and each number of nodes N, N node JVMs ({@link
 * FleetNode}, small heaps) work the same Q queues. It measures claim latency (jobs enqueued one at
 * a time on a random queue by this JVM; the database's {@code attempted_at - scheduled_at}), then
 * drain throughput (all queues paused, {@code --jobs} no-op jobs spread over them, the queues
 * resumed, time until the last completes), with starvation figures: the least and most jobs one
 * node ran, and the earliest and latest time at which a queue finished. The leader's maintenance
 * statements are reported from {@code pg_stat_statements} (calls, mean and max time).
 *
 * <pre>
 * java -jar baton-benchmarks/target/baton-benchmarks.jar fleet [--nodes 1,5,20] [--queues 1,50]
 *     [--jobs 20000] [--concurrency 4] [--pickups 40] [--heap 64m] [--database-url URL]
 * </pre>
 *
 * <p>All node JVMs and the server share this machine: the figures are indicative of how the queue
 * behaves under competition, not of a fleet on separate hosts.
 */
final class FleetBench {
  static final String USAGE =
      """
      usage: java -jar baton-benchmarks/target/baton-benchmarks.jar fleet [options]
        --nodes N[,N...]     node JVMs per run; default 1,5,20
        --queues Q[,Q...]    queues every node works; default 1,50
        --jobs N             jobs of the drain; default 20000
        --concurrency C      slots per queue per node; default 4
        --pickups N          jobs enqueued one at a time for claim latency; default 40
        --heap SIZE          -Xmx of each node JVM; default 64m
        --database-url URL   a server to use instead of an embedded one
      """;

  private record Options(
      List<Integer> nodes,
      List<Integer> queues,
      int jobs,
      int concurrency,
      int pickups,
      String heap,
      String url,
      List<String> raw) {}

  private final BenchDatabase db;
  private final Options opts;
  private final Figures figures;

  private FleetBench(BenchDatabase db, Options opts, Figures figures) {
    this.db = db;
    this.opts = opts;
    this.figures = figures;
  }

  /**
   * Runs the {@code fleet} command; 0 when every run finished, 1 when one failed, 2 on bad usage.
   */
  static int run(List<String> args, PrintStream out, PrintStream err) {
    if (args.contains("--help")) {
      out.print(USAGE);
      return 0;
    }
    Options opts;
    try {
      opts = parse(args);
    } catch (IllegalArgumentException e) {
      err.println("baton-benchmarks: fleet: " + e.getMessage());
      err.print(USAGE);
      return 2;
    }
    return ServerCommand.run(
        "fleet",
        opts.url(),
        Map.of("max_connections", "400"),
        opts.raw(),
        out,
        err,
        (db, figures) -> {
          FleetBench b = new FleetBench(db, opts, figures);
          for (int q : opts.queues()) {
            for (int n : opts.nodes()) {
              b.measure(n, q);
            }
          }
        });
  }

  private static Options parse(List<String> args) {
    List<Integer> nodes = List.of(1, 5, 20);
    List<Integer> queues = List.of(1, 50);
    int jobs = 20_000;
    int concurrency = 4;
    int pickups = 40;
    String heap = "64m";
    String url = null;
    for (int i = 0; i < args.size(); i++) {
      String name = args.get(i);
      if (i + 1 >= args.size()) {
        throw new IllegalArgumentException("option " + name + " needs a value");
      }
      String value = args.get(++i);
      switch (name) {
        case "--nodes" -> nodes = list(name, value);
        case "--queues" -> queues = list(name, value);
        case "--jobs" -> jobs = ServerCommand.positive(name, value);
        case "--concurrency" -> concurrency = ServerCommand.positive(name, value);
        case "--pickups" -> pickups = ServerCommand.positive(name, value);
        case "--heap" -> {
          if (!value.matches("\\d+[kmg]")) {
            throw new IllegalArgumentException(
                "option --heap: expected a size such as 64m, got \"" + value + "\"");
          }
          heap = value;
        }
        case "--database-url" -> url = value;
        default -> throw new IllegalArgumentException("unknown option \"" + name + "\"");
      }
    }
    return new Options(nodes, queues, jobs, concurrency, pickups, heap, url, args);
  }

  private static List<Integer> list(String name, String value) {
    List<Integer> out = new ArrayList<>();
    for (String w : value.split(",")) {
      out.add(ServerCommand.positive(name, w));
    }
    return out;
  }

  private void measure(int nodes, int queues) throws Exception {
    String label = "fleet " + nodes + " nodes x " + queues + " queues";
    System.err.println("[bench] " + label + ": starting");
    List<Node> children = new ArrayList<>();
    HikariDataSource pool = pool();
    try (Connection mon = db.connect()) {
      String schema = db.newMigratedSchema(pool, "fleet_" + nodes + "x" + queues);
      boolean statementStats = ServerCommand.enableStatementStats(mon);
      for (int i = 0; i < nodes; i++) {
        children.add(Node.start(db.jdbcUrl(), schema, "fleet-" + i, queues, opts));
      }
      for (Node n : children) {
        n.awaitLine("ready ", Duration.ofSeconds(120));
      }
      Baton client =
          Baton.builder(pool)
              .config(
                  BatonConfig.builder()
                      .schema(schema)
                      .knownKinds(BenchJobs.Noop.class)
                      .maintenanceEnabled(false)
                      .build())
              .build();

      // Claim latency: one job at a time, on a random queue.
      for (int i = 0; i < opts.pickups(); i++) {
        String q = "q" + ThreadLocalRandom.current().nextInt(queues);
        long id =
            client
                .enqueue(new BenchJobs.Noop(i), EnqueueOptions.builder().queue(q).build())
                .job()
                .id();
        awaitNone(
            mon,
            "SELECT count(*) FROM "
                + schema
                + ".job WHERE id = "
                + id
                + " AND state <> 'completed'");
        Thread.sleep(50 + ThreadLocalRandom.current().nextInt(100));
      }
      String latency =
          one(
              mon,
              "SELECT format('p50 %s ms, p90 %s ms, max %s ms (n=%s)',"
                  + " round(percentile_cont(0.5) WITHIN GROUP (ORDER BY w)::numeric, 1),"
                  + " round(percentile_cont(0.9) WITHIN GROUP (ORDER BY w)::numeric, 1),"
                  + " round(max(w)::numeric, 1), count(*)) FROM (SELECT extract(epoch FROM"
                  + " attempted_at - scheduled_at) * 1000 AS w FROM "
                  + schema
                  + ".job) t");

      // Drain: all queues paused while the jobs go in, then resumed together.
      for (int q = 0; q < queues; q++) {
        client.pauseQueue("q" + q);
      }
      if (statementStats) {
        BenchDatabase.queryLong(mon, "SELECT count(*) FROM pg_stat_statements_reset()");
      }
      List<JobRequest> chunk = new ArrayList<>();
      for (int i = 0; i < opts.jobs(); i++) {
        chunk.add(
            JobRequest.of(
                new BenchJobs.Noop(i), EnqueueOptions.builder().queue("q" + (i % queues)).build()));
        if (chunk.size() == 1_000 || i == opts.jobs() - 1) {
          client.enqueueMany(chunk);
          chunk = new ArrayList<>();
        }
      }
      Instant resumed = Instant.now();
      long t0 = System.nanoTime();
      for (int q = 0; q < queues; q++) {
        client.resumeQueue("q" + q);
      }
      awaitNone(mon, "SELECT count(*) FROM " + schema + ".job WHERE state <> 'completed'");
      double secs = (System.nanoTime() - t0) / 1e9;
      String perNode =
          one(
              mon,
              "SELECT format('%s..%s jobs per node (%s nodes ran any)', min(n), max(n), count(*))"
                  + " FROM (SELECT count(*) AS n"
                  + " FROM "
                  + schema
                  + ".job WHERE id > (SELECT min(id) + "
                  + (opts.pickups() - 1)
                  + " FROM "
                  + schema
                  + ".job) GROUP BY attempted_by) t");
      String perQueue =
          one(
              mon,
              "SELECT format('queues finished %s..%s s after the resume',"
                  + " round(min(t)::numeric, 2), round(max(t)::numeric, 2)) FROM (SELECT"
                  + " extract(epoch FROM max(finalized_at) - '"
                  + resumed
                  + "'::timestamptz) AS t FROM "
                  + schema
                  + ".job GROUP BY queue) t");
      figures.add(label, "claim latency " + latency);
      figures.add(
          "",
          String.format(
              Locale.ROOT,
              "drain %d jobs in %.2f s: %.0f jobs/s; %s; %s",
              opts.jobs(),
              secs,
              opts.jobs() / secs,
              perNode,
              perQueue));
      if (statementStats) {
        figures.add("", "maintenance statements during the drain: " + maintenance(mon));
      }
    } finally {
      for (Node n : children) {
        n.stop();
      }
      pool.close();
    }
  }

  /** The leader's maintenance statements: calls, mean and max execution time. */
  private static String maintenance(Connection mon) throws Exception {
    List<String> out = new ArrayList<>();
    try (Statement st = mon.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT calls, round(mean_exec_time::numeric, 2), round(max_exec_time::numeric,"
                    + " 2), coalesce(substring(regexp_replace(query, '\\s+', ' ', 'g') FROM"
                    + " '(?:UPDATE|DELETE FROM|INSERT INTO) \\S+\\.\\w+(?: \\w+)?(?: SET \\w+ = [^,]{1,24})?'),"
                    + " left(query, 60)) FROM"
                    + " pg_stat_statements WHERE query LIKE '%FOR SHARE%' ORDER BY"
                    + " total_exec_time DESC LIMIT 4")) {
      while (rs.next()) {
        out.add(
            rs.getLong(1)
                + " calls, mean "
                + rs.getString(2)
                + " ms, max "
                + rs.getString(3)
                + " ms ["
                + rs.getString(4)
                + "]");
      }
    }
    return out.isEmpty() ? "(none seen)" : String.join("; ", out);
  }

  private HikariDataSource pool() {
    HikariConfig cfg = new HikariConfig();
    cfg.setJdbcUrl(db.jdbcUrl());
    cfg.setPoolName("fleet-driver");
    cfg.setMaximumPoolSize(4);
    cfg.setMinimumIdle(1);
    return new HikariDataSource(cfg);
  }

  private static String one(Connection c, String sql) throws Exception {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  private static void awaitNone(Connection c, String countSql) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
    while (BenchDatabase.queryLong(c, countSql) > 0) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("fleet: waited 300 s for: " + countSql);
      }
      Thread.sleep(5);
    }
  }

  /** A {@link FleetNode} JVM. */
  private static final class Node {
    private final String name;
    private final Process process;
    private final Writer stdin;
    private final List<String> lines = new CopyOnWriteArrayList<>();

    private Node(String name, Process process) {
      this.name = name;
      this.process = process;
      this.stdin = process.outputWriter(StandardCharsets.UTF_8);
      Thread reader =
          new Thread(
              () -> {
                try (BufferedReader r =
                    new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                  String line;
                  while ((line = r.readLine()) != null) {
                    lines.add(line);
                  }
                } catch (java.io.IOException e) {
                  lines.add("<stdout closed: " + e + ">");
                }
              },
              "fleet-stdout-" + name);
      reader.setDaemon(true);
      reader.start();
    }

    static Node start(String url, String schema, String name, int queues, Options opts)
        throws Exception {
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      int poolSize = Math.min(12, 2 * queues + 4);
      List<String> cmd =
          List.of(
              java,
              "-Xmx" + opts.heap(),
              "-XX:+UseSerialGC",
              "-XX:TieredStopAtLevel=1",
              "-cp",
              System.getProperty("java.class.path"),
              FleetNode.class.getName(),
              url,
              schema,
              name,
              Integer.toString(queues),
              Integer.toString(opts.concurrency()),
              Integer.toString(poolSize));
      Process p =
          new ProcessBuilder(cmd)
              .redirectError(ProcessBuilder.Redirect.appendTo(new File("/dev/null")))
              .start();
      return new Node(name, p);
    }

    void awaitLine(String prefix, Duration atMost) throws Exception {
      long deadline = System.nanoTime() + atMost.toNanos();
      while (lines.stream().noneMatch(l -> l.startsWith(prefix))) {
        if (!process.isAlive() || System.nanoTime() - deadline > 0) {
          throw new IllegalStateException(
              "fleet node " + name + " did not print \"" + prefix + "\"; stdout: " + lines);
        }
        Thread.sleep(20);
      }
    }

    void stop() {
      try {
        stdin.write("stop\n");
        stdin.flush();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      } catch (Exception e) {
        process.destroyForcibly();
      }
    }
  }
}
