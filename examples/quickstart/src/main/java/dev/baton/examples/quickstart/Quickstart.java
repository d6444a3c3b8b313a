package dev.baton.examples.quickstart;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.Counters;
import dev.baton.EnqueueOptions;
import dev.baton.inbox.Inbox;
import dev.baton.migrate.Migrator;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * A shop on Baton: commits orders, enqueues each order's confirmation email in the same
 * transaction, rolls back about 5% of them (a declined payment), works the emails, and checks that
 * exactly one email was recorded per committed order.
 *
 * <pre>
 * ./quickstart                                  # on an embedded PostgreSQL
 * ./quickstart --database-url 'jdbc:postgresql://localhost/app?user=app&amp;password=secret'
 * ./quickstart --orders 5000
 * </pre>
 *
 * <p>Exits 0 when emails recorded == committed orders == completed jobs, 1 otherwise, 2 on bad
 * arguments. With {@code --database-url} it creates the schemas {@code baton} (Baton's tables) and
 * {@code quickstart} (the shop's) if missing and counts only the rows of its own run.
 */
public final class Quickstart {

  static final String SCHEMA = "baton";
  static final String QUEUE = "email";
  static final int WORKERS = 16;
  static final int CHECKOUT_THREADS = 4;
  static final int DECLINED_PERCENT = 5;
  static final Duration WAIT_LIMIT = Duration.ofMinutes(2);

  private static final String USAGE =
      """
      usage: ./quickstart [--database-url JDBC_URL] [--orders N]

        --database-url  a PostgreSQL JDBC URL with user and password as parameters; default: an
                        embedded PostgreSQL started for this run
        --orders        orders to place, 1..1000000; default 1000
      """;

  private static final String CREATE_SHOP_TABLES =
      """
      CREATE SCHEMA IF NOT EXISTS quickstart;
      CREATE TABLE IF NOT EXISTS quickstart.orders (
          id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          run_id      text        NOT NULL,
          customer    text        NOT NULL,
          total_cents bigint      NOT NULL,
          created_at  timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE IF NOT EXISTS quickstart.email_outbox (
          id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          order_id        bigint      NOT NULL REFERENCES quickstart.orders (id),
          recipient       text        NOT NULL,
          subject         text        NOT NULL,
          idempotency_key text        NOT NULL,
          fence           bigint      NOT NULL,
          recorded_at     timestamptz NOT NULL DEFAULT now()
      );
      """;

  private static final String INSERT_ORDER =
      "INSERT INTO quickstart.orders (run_id, customer, total_cents) VALUES (?, ?, ?) RETURNING id";

  // The run's jobs, read the way an operator would: plain SQL on Baton's table.
  private static final String JOB_STATES =
      """
      SELECT count(*),
             count(*) FILTER (WHERE state = 'completed'),
             count(*) FILTER (WHERE state IN ('discarded', 'cancelled'))
      FROM baton.job
      WHERE kind = 'send_order_email' AND metadata ->> 'run_id' = ?
      """;

  private static final String ORDERS_OF_RUN =
      "SELECT count(*) FROM quickstart.orders WHERE run_id = ?";

  private static final String EMAILS_OF_RUN =
      """
      SELECT count(*), count(DISTINCT e.order_id)
      FROM quickstart.email_outbox e JOIN quickstart.orders o ON o.id = e.order_id
      WHERE o.run_id = ?
      """;

  private Quickstart() {}

  /** Runs the example; see the class comment for arguments and exit codes. */
  public static void main(String[] args) {
    int code;
    try {
      code = run(Options.parse(args));
    } catch (UsageException e) {
      System.err.println("quickstart: " + e.getMessage());
      System.err.print(USAGE);
      code = 2;
    } catch (Exception e) {
      System.err.println("quickstart failed: " + e);
      e.printStackTrace();
      code = 1;
    }
    System.exit(code);
  }

  private static int run(Options options) throws Exception {
    if (options.help()) {
      System.out.print(USAGE);
      return 0;
    }
    EmbeddedPostgres embedded = null;
    String url = options.databaseUrl();
    if (url == null) {
      step("Starting an embedded PostgreSQL (first run unpacks its binaries)");
      embedded = EmbeddedPostgres.builder().start();
      url = embedded.getJdbcUrl("postgres", "postgres");
    }
    try (HikariDataSource ds = pool(url)) {
      return runShop(ds, options.orders(), embedded != null);
    } finally {
      if (embedded != null) {
        embedded.close();
      }
    }
  }

  private static int runShop(DataSource ds, int orders, boolean embedded) throws Exception {
    step("PostgreSQL " + queryString(ds, "SHOW server_version") + (embedded ? " (embedded)" : ""));

    step("Migrating schema \"" + SCHEMA + "\": job queue and inbox tables");
    new Migrator(ds, SCHEMA).up();
    Inbox.migrator(ds, SCHEMA).up();
    execute(ds, CREATE_SHOP_TABLES);

    Inbox inbox = new Inbox(SCHEMA);
    SendOrderEmailHandler handler = new SendOrderEmailHandler(ds, inbox);
    BatonConfig config = BatonConfig.builder().schema(SCHEMA).queue(QUEUE, WORKERS).build();
    String runId = UUID.randomUUID().toString();

    try (Baton baton =
        Baton.builder(ds).config(config).handler(SendOrderEmail.class, handler).build()) {
      baton.start();
      step(
          String.format(
              Locale.ROOT,
              "Client started: queue \"%s\", %d handlers at once on %s",
              QUEUE,
              WORKERS,
              Runtime.version().feature() >= 21
                  ? "virtual threads"
                  : "a pool of platform threads"));

      step(
          String.format(
              Locale.ROOT,
              "Placing %d orders on %d threads; each order and its email job commit together,"
                  + " ~%d%% are rolled back",
              orders,
              CHECKOUT_THREADS,
              DECLINED_PERCENT));
      long started = System.nanoTime();
      Checkout checkout = placeOrders(ds, baton, runId, orders);
      long enqueued = System.nanoTime();

      step("Waiting for every committed job to complete");
      JobStates states = awaitFinal(ds, runId, checkout.committed());
      long finished = System.nanoTime();

      long[] emails = queryLongs(ds, EMAILS_OF_RUN, runId);
      long ordersInDb = queryLongs(ds, ORDERS_OF_RUN, runId)[0];
      Report report =
          new Report(
              checkout.committed(),
              checkout.rolledBack(),
              ordersInDb,
              states,
              emails[0],
              emails[1],
              handler.duplicates(),
              Duration.ofNanos(enqueued - started),
              Duration.ofNanos(finished - started),
              baton.counters());
      report.print();
      return report.invariantHolds() ? 0 : 1;
    }
  }

  /** What the checkout threads did. */
  private record Checkout(int committed, int rolledBack) {}

  /**
   * Places {@code orders} orders on {@link #CHECKOUT_THREADS} threads. Each order is one business
   * transaction: insert the order, enqueue its email on the same connection, then commit, or roll
   * back when the payment is declined, which takes the job with it.
   */
  private static Checkout placeOrders(DataSource ds, Baton baton, String runId, int orders)
      throws Exception {
    // Decided up front from a fixed seed, so a given --orders always declines the same orders.
    Random random = new Random(42);
    boolean[] declined = new boolean[orders];
    long[] totals = new long[orders];
    for (int i = 0; i < orders; i++) {
      declined[i] = random.nextInt(100) < DECLINED_PERCENT;
      totals[i] = 500 + random.nextInt(20_000);
    }
    AtomicInteger committed = new AtomicInteger();
    AtomicInteger rolledBack = new AtomicInteger();
    ExecutorService threads = Executors.newFixedThreadPool(CHECKOUT_THREADS);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < CHECKOUT_THREADS; t++) {
        int first = t;
        done.add(
            threads.submit(
                () -> {
                  for (int i = first; i < orders; i += CHECKOUT_THREADS) {
                    String customer = "customer" + i + "@example.com";
                    if (placeOrder(ds, baton, runId, customer, totals[i], declined[i])) {
                      committed.incrementAndGet();
                    } else {
                      rolledBack.incrementAndGet();
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      threads.shutdownNow();
    }
    return new Checkout(committed.get(), rolledBack.get());
  }

  /** One business transaction. Returns whether it committed. */
  private static boolean placeOrder(
      DataSource ds, Baton baton, String runId, String customer, long totalCents, boolean declined)
      throws SQLException {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      try {
        long orderId;
        try (PreparedStatement ps = c.prepareStatement(INSERT_ORDER)) {
          ps.setString(1, runId);
          ps.setString(2, customer);
          ps.setLong(3, totalCents);
          try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            orderId = rs.getLong(1);
          }
        }
        // Same connection, same transaction: the job exists if and only if the order does.
        baton.enqueue(
            c,
            new SendOrderEmail(orderId, customer, totalCents),
            EnqueueOptions.builder()
                .queue(QUEUE)
                .idempotencyKey("order-email:" + orderId)
                .metadata("run_id", runId)
                .build());
        if (declined) {
          c.rollback();
          return false;
        }
        c.commit();
        return true;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    }
  }

  /** Counts of this run's jobs: all, completed, and final in another way (discarded, cancelled). */
  private record JobStates(long jobs, long completed, long failed) {}

  /**
   * Waits until every job of the run is final, and at least {@code expected} exist (a committed
   * transaction's job is visible at once; this only guards against counting too early).
   */
  private static JobStates awaitFinal(DataSource ds, String runId, int expected)
      throws SQLException, InterruptedException {
    long deadline = System.nanoTime() + WAIT_LIMIT.toNanos();
    while (true) {
      long[] r = queryLongs(ds, JOB_STATES, runId);
      JobStates s = new JobStates(r[0], r[1], r[2]);
      if (s.jobs() >= expected && s.completed() + s.failed() == s.jobs()) {
        return s;
      }
      if (System.nanoTime() - deadline > 0) {
        System.out.printf(
            Locale.ROOT,
            "  gave up after %d s: %d of %d jobs completed%n",
            WAIT_LIMIT.toSeconds(),
            s.completed(),
            s.jobs());
        return s;
      }
      Thread.sleep(20);
    }
  }

  /** The figures of one run and the invariant they must satisfy. */
  private record Report(
      int committed,
      int rolledBack,
      long ordersInDb,
      JobStates jobs,
      long emails,
      long ordersEmailed,
      long duplicates,
      Duration enqueueTime,
      Duration totalTime,
      Counters counters) {

    boolean invariantHolds() {
      return ordersInDb == committed
          && jobs.jobs() == committed
          && jobs.completed() == committed
          && emails == committed
          && ordersEmailed == committed;
    }

    void print() {
      double seconds = totalTime.toNanos() / 1e9;
      System.out.println();
      System.out.println("Baton quickstart report");
      System.out.println("-----------------------");
      line("orders committed", committed, "");
      line("orders rolled back", rolledBack, "their email jobs rolled back with them");
      line("jobs enqueued", jobs.jobs(), "committed jobs of this run found in baton.job");
      line("jobs completed", jobs.completed(), jobs.failed() + " discarded or cancelled");
      line(
          "emails recorded",
          emails,
          ordersEmailed + " distinct orders; " + duplicates + " redeliveries skipped by the inbox");
      System.out.printf(
          Locale.ROOT,
          "  %-20s %8.2f s  (placing orders took %.2f s)%n",
          "time",
          seconds,
          enqueueTime.toNanos() / 1e9);
      System.out.printf(
          Locale.ROOT,
          "  %-20s %8.0f jobs/s  (first order placed to last job completed)%n",
          "throughput",
          jobs.completed() / seconds);
      // Counted at claim, so final here; completions are counted a moment after they commit,
      // so the database's figure above is the one to trust for those.
      System.out.printf(
          Locale.ROOT,
          "  %-20s %8d  (retried %d, fenced %d, rescued %d)%n",
          "claims",
          counters.claimed(),
          counters.retried(),
          counters.fenced(),
          counters.rescued());
      System.out.println();
      if (invariantHolds()) {
        System.out.printf(
            Locale.ROOT,
            "OK: emails recorded (%d) == committed orders (%d) == completed jobs (%d)%n",
            emails,
            committed,
            jobs.completed());
      } else {
        System.out.printf(
            Locale.ROOT,
            "FAILED: emails recorded %d (%d distinct orders), committed orders %d (%d in the"
                + " table), jobs %d, completed jobs %d%n",
            emails,
            ordersEmailed,
            committed,
            ordersInDb,
            jobs.jobs(),
            jobs.completed());
      }
    }

    private static void line(String label, long value, String note) {
      System.out.printf(
          Locale.ROOT, "  %-20s %8d%s%n", label, value, note.isEmpty() ? "" : "  (" + note + ")");
    }
  }

  private static HikariDataSource pool(String url) {
    HikariConfig cfg = new HikariConfig();
    cfg.setJdbcUrl(url);
    cfg.setPoolName("quickstart");
    // Handlers each hold a connection for their transaction; the checkout threads, the claim,
    // the completer, the heartbeater, maintenance and the LISTEN connection need a few more.
    cfg.setMaximumPoolSize(WORKERS + CHECKOUT_THREADS + 8);
    return new HikariDataSource(cfg);
  }

  private static void step(String message) {
    System.out.println("- " + message);
  }

  private static void execute(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  private static String queryString(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  /** The columns of the one row {@code sql} returns for {@code runId}, as longs. */
  private static long[] queryLongs(DataSource ds, String sql, String runId) throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, runId);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        long[] out = new long[rs.getMetaData().getColumnCount()];
        for (int i = 0; i < out.length; i++) {
          out[i] = rs.getLong(i + 1);
        }
        return out;
      }
    }
  }

  /** Bad command-line arguments. */
  private static final class UsageException extends Exception {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
      super(message);
    }
  }

  /** The command line. */
  private record Options(String databaseUrl, int orders, boolean help) {

    static Options parse(String[] args) throws UsageException {
      String url = null;
      int orders = 1000;
      boolean help = false;
      for (int i = 0; i < args.length; i++) {
        String arg = args[i];
        String name = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
        String inline = arg.contains("=") ? arg.substring(arg.indexOf('=') + 1) : null;
        switch (name) {
          case "-h", "--help" -> help = true;
          case "--database-url" -> {
            url = inline != null ? inline : value(args, ++i, name);
            if (!url.startsWith("jdbc:postgresql:")) {
              throw new UsageException(
                  "--database-url must be a PostgreSQL JDBC URL (jdbc:postgresql://...), got \""
                      + url
                      + "\"");
            }
          }
          case "--orders" -> {
            String v = inline != null ? inline : value(args, ++i, name);
            try {
              orders = Integer.parseInt(v);
            } catch (NumberFormatException e) {
              orders = -1;
            }
            if (orders < 1 || orders > 1_000_000) {
              throw new UsageException("--orders must be 1..1000000, got \"" + v + "\"");
            }
          }
          default -> throw new UsageException("unknown argument \"" + arg + "\"");
        }
      }
      return new Options(url, orders, help);
    }

    private static String value(String[] args, int i, String name) throws UsageException {
      if (i >= args.length) {
        throw new UsageException(name + " needs a value");
      }
      return args[i];
    }
  }
}
