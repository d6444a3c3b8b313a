package dev.baton.cli.lab;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One lab run: in a fresh schema of its own, for each strategy in turn, a table of jobs drained by
 * concurrent workers, then the counts. The schema is made for the run and dropped after it (unless
 * kept); a schema of that name that the lab did not make is never touched.
 *
 * <p>Concurrency: one run per lab schema at a time (a session advisory lock, held for the run); the
 * strategies run one after another, never side by side, so they do not compete for the machine.
 */
public final class Lab {
  /** The comment that marks a schema as the lab's, so that a later run may drop it. */
  static final String SCHEMA_MARK = "baton lab: throwaway tables, dropped by the next run";

  static final String SCHEMA_COMMENT =
      """
      SELECT obj_description(oid, 'pg_namespace') FROM pg_namespace WHERE nspname = ?
      """;

  // One lab run per schema: a second run would drop the first one's tables under its workers.
  static final String TRY_LOCK_SCHEMA = "SELECT pg_try_advisory_lock(hashtext('baton lab ' || ?))";

  private final String url;
  private final LabSettings settings;
  private final PrintWriter progress;
  private final String quotedSchema;

  /**
   * A lab on the database at {@code url}; {@code progress} gets a line per strategy.
   *
   * @param url JDBC URL, user and password as parameters
   * @param settings what to run; the lab schema already validated as a plain lower-case identifier
   * @param progress where progress lines go (stderr)
   */
  public Lab(String url, LabSettings settings, PrintWriter progress) {
    this.url = url;
    this.settings = settings;
    this.progress = progress;
    this.quotedSchema = "\"" + settings.labSchema() + "\"";
  }

  /**
   * Runs every strategy of the settings and returns their figures.
   *
   * @throws LabException when the lab schema belongs to something else or is in use by another run,
   *     or a worker failed (its {@link SQLException} as the cause)
   * @throws SQLException when the database refuses the lab's own statements
   * @throws InterruptedException when interrupted while workers run; they are stopped first
   */
  public LabReport run() throws SQLException, InterruptedException {
    try (Connection admin = connect("baton-lab")) {
      String version = queryString(admin, "SHOW server_version");
      lockSchema(admin);
      createSchema(admin);
      List<StrategyResult> results = new ArrayList<>();
      boolean done = false;
      try {
        for (Strategy s : settings.strategies()) {
          results.add(run(admin, s));
        }
        done = true;
      } finally {
        if (!settings.keep()) {
          try {
            execute(admin, "DROP SCHEMA " + quotedSchema + " CASCADE");
          } catch (SQLException e) {
            if (done) {
              throw e;
            }
            // the run's own failure is the one to report
          }
        }
      }
      return new LabReport(version, results);
    }
  }

  private void lockSchema(Connection admin) throws SQLException {
    try (PreparedStatement ps = admin.prepareStatement(TRY_LOCK_SCHEMA)) {
      ps.setString(1, settings.labSchema());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        if (!rs.getBoolean(1)) {
          throw new LabException(
              "cannot run the lab in schema \""
                  + settings.labSchema()
                  + "\": another baton lab is running in it; wait for it or pass another"
                  + " --lab-schema");
        }
      }
    }
  }

  private void createSchema(Connection admin) throws SQLException {
    String comment = null;
    boolean exists;
    try (PreparedStatement ps = admin.prepareStatement(SCHEMA_COMMENT)) {
      ps.setString(1, settings.labSchema());
      try (ResultSet rs = ps.executeQuery()) {
        exists = rs.next();
        if (exists) {
          comment = rs.getString(1);
        }
      }
    }
    if (exists && !SCHEMA_MARK.equals(comment)) {
      throw new LabException(
          "cannot run the lab in schema \""
              + settings.labSchema()
              + "\": it exists and was not made by baton lab, which drops its schema after the"
              + " run; pass another --lab-schema");
    }
    if (exists) {
      // Left by a run with --keep, or one that was killed.
      execute(admin, "DROP SCHEMA " + quotedSchema + " CASCADE");
    }
    execute(admin, "CREATE SCHEMA " + quotedSchema);
    execute(admin, "COMMENT ON SCHEMA " + quotedSchema + " IS '" + SCHEMA_MARK + "'");
  }

  private StrategyResult run(Connection admin, Strategy strategy)
      throws SQLException, InterruptedException {
    LabTables tables = new LabTables(quotedSchema, strategy);
    execute(admin, tables.expand(LabTables.CREATE_JOB));
    execute(admin, tables.expand(LabTables.CREATE_JOB_INDEX));
    execute(admin, tables.expand(LabTables.CREATE_RUN));
    try (PreparedStatement ps = admin.prepareStatement(tables.expand(LabTables.INSERT_JOBS))) {
      ps.setInt(1, settings.jobs());
      ps.executeUpdate();
    }
    execute(admin, tables.expand(LabTables.ANALYZE_JOB));

    List<Connection> connections = new ArrayList<>();
    try {
      List<Integer> pids = new ArrayList<>();
      for (int i = 1; i <= settings.workers(); i++) {
        Connection c =
            connectForRun("baton-lab-worker-" + i, "lab worker " + i + " of " + settings.workers());
        connections.add(c);
        // The lab measures claiming, not the disk: commits do not wait for the WAL flush.
        execute(c, "SET synchronous_commit = off");
        pids.add(Integer.valueOf(queryString(c, "SELECT pg_backend_pid()")));
      }
      Connection samplerConnection = connectForRun("baton-lab-sampler", "the lock-wait sampler");
      connections.add(samplerConnection);

      CountDownLatch start = new CountDownLatch(1);
      AtomicReference<Throwable> failure = new AtomicReference<>();
      List<LabWorker> workers = new ArrayList<>();
      List<Thread> threads = new ArrayList<>();
      for (int i = 1; i <= settings.workers(); i++) {
        LabWorker w =
            new LabWorker(
                "w" + i, connections.get(i - 1), tables, settings, strategy, start, failure);
        workers.add(w);
        Thread t = new Thread(w, "baton-lab-worker-" + i);
        t.setDaemon(true);
        threads.add(t);
        t.start();
      }
      LockWaitSampler sampler = new LockWaitSampler(samplerConnection, pids);
      sampler.start();
      long began = System.nanoTime();
      start.countDown();
      try {
        for (Thread t : threads) {
          t.join();
        }
      } catch (InterruptedException e) {
        failure.compareAndSet(null, e);
        threads.forEach(Thread::interrupt);
        sampler.stop();
        throw e;
      }
      Duration elapsed = Duration.ofNanos(System.nanoTime() - began);
      Duration lockWait = sampler.stop();
      Throwable t = failure.get();
      if (t instanceof LabException e) {
        throw new LabException(
            "the " + strategy.id() + " run failed in worker " + e.getMessage(), e.getCause());
      } else if (t != null) {
        throw new LabException("the " + strategy.id() + " run failed: " + t, t);
      }

      long runs;
      long distinct;
      try (Statement st = admin.createStatement();
          ResultSet rs = st.executeQuery(tables.expand(LabTables.COUNT_RUNS))) {
        rs.next();
        runs = rs.getLong(1);
        distinct = rs.getLong(2);
      }
      long retries = workers.stream().mapToLong(LabWorker::retries).sum();
      StrategyResult r =
          new StrategyResult(
              strategy,
              settings.jobs(),
              runs,
              runs - distinct,
              settings.jobs() - distinct,
              retries,
              lockWait,
              elapsed);
      progress.println(
          String.format(
              Locale.ROOT,
              "lab: %s: %d jobs, %d runs in %.2f s",
              strategy.id(),
              r.jobs(),
              r.runs(),
              elapsed.toNanos() / 1e9));
      progress.flush();
      return r;
    } finally {
      for (Connection c : connections) {
        try {
          c.close();
        } catch (SQLException e) {
          // a worker connection that failed already; its error is reported
        }
      }
    }
  }

  private Connection connectForRun(String applicationName, String role) {
    try {
      return connect(applicationName);
    } catch (SQLException e) {
      throw new LabException(
          "cannot open the connection of "
              + role
              + ": "
              + e.getMessage()
              + "; lower --workers or raise the server's max_connections",
          e);
    }
  }

  private Connection connect(String applicationName) throws SQLException {
    Properties p = new Properties();
    p.setProperty("ApplicationName", applicationName);
    p.setProperty("connectTimeout", "10");
    return DriverManager.getConnection(url, p);
  }

  private static void execute(Connection c, String sql) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  private static String queryString(Connection c, String sql) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }
}
