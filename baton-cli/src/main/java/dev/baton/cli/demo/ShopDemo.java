package dev.baton.cli.demo;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.EnqueueOptions;
import dev.baton.migrate.Migrator;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One run of the shop demo: sets up the schemas, starts the mail provider and the pods, places the
 * orders, injects the faults, waits for every email job to finish, and checks the invariants
 * against the provider's ledger and the database.
 *
 * <p>The faults are tied to the provider's progress, so each lands where it teaches something:
 *
 * <ul>
 *   <li><b>kill</b> (after a fifth of the emails): the provider records a pod's email, then the
 *       demo SIGKILLs that pod before the answer goes back, so the email went out and the job was
 *       never completed. Its lease runs out, the leader rescues the job, another pod sends again
 *       with the same idempotency key, and the provider answers with the first send. A replacement
 *       pod starts, as an orchestrator would start one.
 *   <li><b>freeze</b> (after 45%): a request of another pod arrives and the demo SIGSTOPs that pod;
 *       the provider holds the request until the job has been rescued and sent by a newer holder,
 *       then the pod is resumed and its request is looked at: its fence is lower than the newer
 *       holder's, and the provider refuses it (a process pause in the middle of a send).
 *   <li><b>backend kills</b> (after 70%): every database connection of the pods is terminated with
 *       {@code pg_terminate_backend}; pools and Baton's own connections recover.
 * </ul>
 */
public final class ShopDemo {
  /** The queue of the email jobs. */
  static final String QUEUE = "emails";

  private static final int PLACERS = 8;
  private static final Duration POD_START_TIMEOUT = Duration.ofSeconds(60);

  private final String url;
  private final DemoSettings settings;
  private final PrintWriter progress;
  private final boolean tty;
  private final List<PodProcess> pods = new CopyOnWriteArrayList<>();
  private final ArrayNode faults = JsonNodeFactory.instance.arrayNode();
  private final AtomicInteger podNumbers = new AtomicInteger();
  private final Set<Long> committed = ConcurrentHashMap.newKeySet();
  private final Set<Long> rolledBack = ConcurrentHashMap.newKeySet();
  private final AtomicLong placed = new AtomicLong();
  private final AtomicBoolean killDone = new AtomicBoolean();
  private final AtomicBoolean freezeStarted = new AtomicBoolean();
  private final AtomicBoolean freezeDone = new AtomicBoolean();
  private final AtomicBoolean backendsDone = new AtomicBoolean();
  private volatile String killedPod;
  private volatile String killedKey;
  private volatile String frozenPod;
  private volatile boolean frozenKeyResent;
  private volatile long frozenMillis;
  private volatile int backendsTerminated;
  private volatile String replacementError;
  private MailProvider provider;

  private ShopDemo(String url, DemoSettings settings, PrintWriter progress, boolean tty) {
    this.url = url;
    this.settings = settings;
    this.progress = progress;
    this.tty = tty;
  }

  /**
   * Runs the demo on the database at {@code url}; {@code progress} gets a live status line ({@code
   * tty}: rewritten in place; else one line a second).
   */
  public static DemoReport run(String url, DemoSettings settings, PrintWriter progress, boolean tty)
      throws Exception {
    return new ShopDemo(url, settings, progress, tty).run();
  }

  private DemoReport run() throws Exception {
    HikariConfig pool = new HikariConfig();
    pool.setJdbcUrl(url);
    pool.setPoolName("baton-demo-shop");
    pool.setMaximumPoolSize(PLACERS + 6);
    pool.addDataSourceProperty("ApplicationName", "baton-demo-shop");
    try (HikariDataSource ds = new HikariDataSource(dev.baton.cli.Pools.forBaton(pool))) {
      setUp(ds);
      // The provider is another system: its ledger has a pool of its own.
      HikariConfig ledgerPool = new HikariConfig();
      ledgerPool.setJdbcUrl(url);
      ledgerPool.setPoolName("demo-mail-provider");
      ledgerPool.setMaximumPoolSize(8);
      ledgerPool.addDataSourceProperty("ApplicationName", "baton-demo-mail-provider");
      try (HikariDataSource ledger = new HikariDataSource(ledgerPool);
          MailProvider mail =
              MailProvider.start(ledger, settings.shopSchema(), settings.unsafeProvider())) {
        provider = mail;
        if (settings.faults()) {
          mail.faults(new Faults());
        }
        try {
          return work(ds);
        } finally {
          for (PodProcess p : pods) {
            p.close();
          }
        }
      }
    }
  }

  private void setUp(HikariDataSource ds) throws SQLException {
    say(
        "setting up schemas "
            + settings.schema()
            + " (queue) and "
            + settings.shopSchema()
            + " (shop)");
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement()) {
      st.execute("DROP SCHEMA IF EXISTS " + settings.schema() + " CASCADE");
      st.execute("DROP SCHEMA IF EXISTS " + settings.shopSchema() + " CASCADE");
    }
    new Migrator(ds, settings.schema()).up();
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement()) {
      st.execute("CREATE SCHEMA " + settings.shopSchema());
      st.execute(
          "CREATE TABLE "
              + settings.shopSchema()
              + ".shop_order (id bigserial PRIMARY KEY, customer text NOT NULL,"
              + " total_cents integer NOT NULL, placed_at timestamptz NOT NULL DEFAULT now())");
      st.execute(MailProvider.ledgerDdl(settings.shopSchema()));
    }
  }

  private DemoReport work(HikariDataSource ds) throws Exception {
    say(
        "mail provider on "
            + provider.uri()
            + (settings.unsafeProvider() ? " (UNSAFE: ignores idempotency keys and fences)" : ""));
    say("starting " + settings.pods() + " worker pods (JVMs) ...");
    List<PodProcess> starting = new ArrayList<>();
    for (int i = 0; i < settings.pods(); i++) {
      starting.add(startPod());
    }
    for (PodProcess p : starting) {
      awaitReady(p);
    }
    say(
        "pods running: "
            + String.join(
                ", ", pods.stream().map(p -> p.name() + " (pid " + p.pid() + ")").toList()));

    long start = System.nanoTime();
    Baton shop =
        Baton.builder(ds)
            .config(
                BatonConfig.builder()
                    .schema(settings.schema())
                    .nodeId("demo-shop")
                    .allowUnknownKinds(true)
                    .build())
            .build();
    ExecutorService placers = Executors.newFixedThreadPool(PLACERS, r -> daemon(r, "demo-placer"));
    List<Future<?>> placing = new ArrayList<>();
    AtomicInteger next = new AtomicInteger();
    for (int t = 0; t < PLACERS; t++) {
      placing.add(placers.submit(() -> placeOrders(ds, shop, next)));
    }
    placers.shutdown();

    boolean finished = watch(ds, start, placers);
    for (Future<?> f : placing) {
      if (f.isDone()) {
        f.get(); // an order that could not be placed fails the run here
      }
    }
    double elapsed = (System.nanoTime() - start) / 1e9;
    Map<String, Long> completedByPod = scrapeCompleted();
    say("stopping the pods ...");
    for (PodProcess p : pods) {
      if (p.isAlive()) {
        p.stop(Duration.ofSeconds(20));
      }
    }
    return report(ds, finished, elapsed, completedByPod);
  }

  private PodProcess startPod() throws IOException {
    String name = "pod-" + podNumbers.incrementAndGet();
    int port = settings.metricsPort() == 0 ? 0 : settings.metricsPort() + podNumbers.get() - 1;
    List<String> args =
        List.of(
            "--url", url,
            "--schema", settings.schema(),
            "--node", name,
            "--provider", provider.uri().toString(),
            "--concurrency", Integer.toString(settings.concurrency()),
            "--lease-ms", Long.toString(settings.lease().toMillis()),
            "--metrics-host", settings.metricsHost(),
            "--metrics-port", Integer.toString(port));
    PodProcess p = PodProcess.start(name, args);
    pods.add(p);
    return p;
  }

  private void awaitReady(PodProcess p) throws InterruptedException {
    if (!p.awaitReady(POD_START_TIMEOUT)) {
      throw new IllegalStateException(
          "worker pod "
              + p.name()
              + (p.isAlive()
                  ? " did not start within " + POD_START_TIMEOUT.toSeconds() + " s"
                  : " exited before it was ready")
              + "; its log ends with: "
              + p.stderrTail());
    }
  }

  /** Places orders until {@code next} passes the number asked for. */
  private Void placeOrders(HikariDataSource ds, Baton shop, AtomicInteger next) throws Exception {
    for (int n = next.incrementAndGet(); n <= settings.orders(); n = next.incrementAndGet()) {
      boolean declined =
          new SplittableRandom(settings.seed() * 1_000_003L + n).nextInt(100)
              < settings.rollbackPercent();
      placeOrder(ds, shop, n, declined);
      placed.incrementAndGet();
    }
    return null;
  }

  /** One order and its email job in one transaction; a declined payment rolls both back. */
  private void placeOrder(HikariDataSource ds, Baton shop, int n, boolean declined)
      throws SQLException {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      try {
        long orderId;
        String customer = "customer-" + n + "@example.com";
        try (PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO "
                    + settings.shopSchema()
                    + ".shop_order (customer, total_cents) VALUES (?, ?) RETURNING id")) {
          ps.setString(1, customer);
          ps.setInt(2, 1000 + n % 9000);
          try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            orderId = rs.getLong(1);
          }
        }
        shop.enqueue(
            c,
            new OrderEmail(orderId, customer),
            EnqueueOptions.builder()
                .queue(QUEUE)
                .idempotencyKey(OrderEmail.idempotencyKey(orderId))
                .build());
        if (declined) {
          c.rollback();
          rolledBack.add(orderId);
        } else {
          c.commit();
          committed.add(orderId);
        }
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    }
  }

  /**
   * Prints the status line until every order is placed and every email job has finished (and every
   * fault has run its course), or the timeout passes; true when finished.
   */
  private boolean watch(HikariDataSource ds, long start, ExecutorService placers) throws Exception {
    long deadline = start + settings.timeout().toNanos();
    long lastCompleted = 0;
    long lastAt = start;
    int tick = 0;
    boolean finished = false;
    while (System.nanoTime() < deadline) {
      Thread.sleep(250);
      tick++;
      Map<String, Long> states = jobStates(ds);
      long completed = states.getOrDefault("completed", 0L);
      long live =
          states.getOrDefault("available", 0L)
              + states.getOrDefault("scheduled", 0L)
              + states.getOrDefault("retryable", 0L)
              + states.getOrDefault("running", 0L);
      if (settings.faults()
          && !backendsDone.get()
          && provider.sent() >= Math.max(1, settings.orders() * 70L / 100)) {
        terminateBackends(ds);
      }
      long now = System.nanoTime();
      if (tick % 4 == 0 || tty) {
        double rate = (completed - lastCompleted) / Math.max(1e-9, (now - lastAt) / 1e9);
        status(start, states, completed, rate);
        if (tick % 4 == 0) {
          lastCompleted = completed;
          lastAt = now;
        }
      }
      // A frozen pod's held request must have been answered before the run can end.
      boolean faultsSettled = !freezeStarted.get() || freezeDone.get();
      if (placers.isTerminated() && live == 0 && faultsSettled) {
        finished = true;
        break;
      }
    }
    if (tty) {
      progress.println();
    }
    Map<String, Long> states = jobStates(ds);
    status(start, states, states.getOrDefault("completed", 0L), 0);
    return finished;
  }

  private void status(long start, Map<String, Long> states, long completed, double rate) {
    String line =
        String.format(
            Locale.ROOT,
            "[%5.1fs] orders %d/%d placed (%d rolled back) | queue: %d waiting, %d running |"
                + " jobs %d done, emails %d sent | %.0f jobs/s | faults: %s",
            (System.nanoTime() - start) / 1e9,
            placed.get(),
            settings.orders(),
            rolledBack.size(),
            states.getOrDefault("available", 0L)
                + states.getOrDefault("scheduled", 0L)
                + states.getOrDefault("retryable", 0L),
            states.getOrDefault("running", 0L),
            completed,
            provider.sent(),
            rate,
            faultsSoFar());
    if (tty) {
      progress.print("\r" + line + "   ");
    } else {
      progress.println(line);
    }
    progress.flush();
  }

  private String faultsSoFar() {
    if (!settings.faults()) {
      return "off";
    }
    List<String> f = new ArrayList<>();
    f.add(killDone.get() ? "killed " + killedPod : "kill pending");
    f.add(
        freezeDone.get()
            ? "froze " + frozenPod
            : freezeStarted.get() ? frozenPod + " frozen" : "freeze pending");
    f.add(backendsDone.get() ? backendsTerminated + " connections cut" : "backend kill pending");
    return String.join(", ", f);
  }

  private Map<String, Long> jobStates(HikariDataSource ds) throws SQLException {
    Map<String, Long> m = new HashMap<>();
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT state::text, count(*) FROM "
                    + settings.schema()
                    + ".job WHERE queue = ? GROUP BY state")) {
      ps.setString(1, QUEUE);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          m.put(rs.getString(1), rs.getLong(2));
        }
      }
    }
    return m;
  }

  private void terminateBackends(HikariDataSource ds) throws SQLException {
    if (!backendsDone.compareAndSet(false, true)) {
      return;
    }
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity"
                    + " WHERE application_name LIKE 'baton-demo-pod-%'"
                    + " AND pid <> pg_backend_pid()")) {
      rs.next();
      backendsTerminated = rs.getInt(1);
    }
    fault(
        "backend_kill",
        null,
        "terminated all " + backendsTerminated + " database connections of the pods");
  }

  private void fault(String kind, String pod, String detail) {
    synchronized (faults) {
      ObjectNode o = faults.addObject();
      o.put("fault", kind);
      o.put("pod", pod);
      o.put("at_emails", provider.sent());
      o.put("detail", detail);
    }
  }

  /** The provider-side hooks that kill and freeze pods at the right moment. */
  private final class Faults implements MailProvider.Faults {
    @Override
    public void afterSend(String node, String key, long fence) {
      if (killDone.get()
          || provider.sent() < Math.max(1, settings.orders() * 20L / 100)
          || node == null
          || node.equals(frozenPod)) {
        return;
      }
      PodProcess victim = pod(node);
      if (victim == null || !victim.isAlive() || !killDone.compareAndSet(false, true)) {
        return;
      }
      try {
        killedPod = node;
        killedKey = key;
        victim.kill();
        fault(
            "kill",
            node,
            "SIGKILL right after the provider sent the email of "
                + key
                + " (fence "
                + fence
                + "), before the pod could record the completion");
        Thread replacement =
            new Thread(
                () -> {
                  try {
                    PodProcess p = startPod();
                    awaitReady(p);
                    say(p.name() + " started in place of " + node);
                  } catch (Exception e) {
                    replacementError = e.getMessage();
                  }
                },
                "demo-pod-replacement");
        replacement.setDaemon(true);
        replacement.start();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    @Override
    public void beforeAccept(String node, String key, long fence) {
      if (freezeStarted.get()
          || !killDone.get()
          || provider.sent() < Math.max(1, settings.orders() * 45L / 100)
          || node == null
          || node.equals(killedPod)) {
        return;
      }
      PodProcess victim = pod(node);
      if (victim == null || !victim.isAlive() || !freezeStarted.compareAndSet(false, true)) {
        return;
      }
      frozenPod = node;
      long t0 = System.nanoTime();
      try {
        victim.freeze();
        // Hold the frozen pod's request until a newer holder of the job has sent it (a lease, a
        // rescue and a retry later), or give up; the checks then say the freeze went wrong.
        long giveUp =
            t0
                + Math.min(
                    settings.timeout().toNanos(),
                    settings.lease().multipliedBy(5).plusSeconds(20).toNanos());
        while (!provider.hasSent(key) && System.nanoTime() < giveUp) {
          Thread.sleep(20);
        }
        frozenKeyResent = provider.hasSent(key);
        frozenMillis = (System.nanoTime() - t0) / 1_000_000;
        victim.resume();
        fault(
            "freeze",
            node,
            "SIGSTOP for "
                + frozenMillis
                + " ms (lease "
                + settings.lease().toMillis()
                + " ms) while its send of "
                + key
                + " (fence "
                + fence
                + ") was in flight; "
                + (frozenKeyResent
                    ? "the job was rescued and sent by a newer holder first"
                    : "the job was NOT sent by another holder in time"));
      } catch (IOException e) {
        fault("freeze", node, "could not signal the pod: " + e.getMessage());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        freezeDone.set(true);
      }
    }

    private PodProcess pod(String name) {
      return pods.stream().filter(p -> p.name().equals(name)).findFirst().orElse(null);
    }
  }

  /** {@code baton_jobs_completed_total} of every live pod, read from its Prometheus endpoint. */
  private Map<String, Long> scrapeCompleted() {
    Map<String, Long> m = new HashMap<>();
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    for (PodProcess p : pods) {
      if (!p.isAlive() || p.metricsUrl() == null) {
        continue;
      }
      try {
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(URI.create(p.metricsUrl()))
                    .timeout(Duration.ofSeconds(5))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        double sum = 0;
        for (String line : r.body().split("\n")) {
          if (line.startsWith("baton_jobs_completed_total")) {
            sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
          }
        }
        m.put(p.name(), (long) sum);
      } catch (IOException | RuntimeException e) {
        m.put(p.name(), -1L);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return m;
  }

  private DemoReport report(
      HikariDataSource ds, boolean finished, double elapsed, Map<String, Long> completedByPod)
      throws SQLException {
    DemoReport r = new DemoReport();
    ObjectNode json = r.json();
    ObjectNode s = json.putObject("settings");
    s.put("orders", settings.orders());
    s.put("pods", settings.pods());
    s.put("concurrency", settings.concurrency());
    s.put("lease_ms", settings.lease().toMillis());
    s.put("faults", settings.faults());
    s.put("rollback_percent", settings.rollbackPercent());
    s.put("seed", settings.seed());
    s.put("schema", settings.schema());
    s.put("shop_schema", settings.shopSchema());
    s.put("unsafe_provider", settings.unsafeProvider());

    String shop = settings.shopSchema();
    String q = settings.schema();
    long ordersInDb = longOf(ds, "SELECT count(*) FROM " + shop + ".shop_order");
    ObjectNode o = json.putObject("orders");
    o.put("committed", committed.size());
    o.put("rolled_back", rolledBack.size());
    o.put("in_database", ordersInDb);

    long ledgerRows = longOf(ds, "SELECT count(*) FROM " + shop + ".mail_ledger");
    long ledgerOrders = longOf(ds, "SELECT count(DISTINCT order_id) FROM " + shop + ".mail_ledger");
    long twice =
        longOf(
            ds,
            "SELECT count(*) FROM (SELECT order_id FROM "
                + shop
                + ".mail_ledger GROUP BY order_id HAVING count(*) > 1) d");
    long unknownOrders =
        longOf(
            ds,
            "SELECT count(*) FROM "
                + shop
                + ".mail_ledger l WHERE NOT EXISTS (SELECT 1 FROM "
                + shop
                + ".shop_order o WHERE o.id = l.order_id)");
    long rolledBackEmailed =
        longOf(
            ds,
            "SELECT count(*) FROM " + shop + ".mail_ledger WHERE order_id = ANY (?)",
            rolledBack);
    long committedNotEmailed =
        longOf(
            ds,
            "SELECT count(*) FROM unnest(?::bigint[]) AS c(id) WHERE NOT EXISTS (SELECT 1 FROM "
                + shop
                + ".mail_ledger l WHERE l.order_id = c.id)",
            committed);
    ObjectNode e = json.putObject("emails");
    e.put("delivered", provider.sent());
    e.put("ledger_rows", ledgerRows);
    e.put("distinct_orders", ledgerOrders);
    e.put("orders_emailed_twice", twice);
    e.put("committed_orders_not_emailed", committedNotEmailed);
    e.put("rolled_back_orders_emailed", rolledBackEmailed);
    e.put("repeats_suppressed_by_key", provider.replayed());
    e.put("stale_sends_refused_by_fence", provider.staleRefused());
    e.put("requests", provider.requests());

    Map<String, Long> states = jobStates(ds);
    long jobsTotal = states.values().stream().mapToLong(Long::longValue).sum();
    long jobsCompleted = states.getOrDefault("completed", 0L);
    long rescued =
        longOf(
            ds,
            "SELECT coalesce(sum((metadata->>'rescue_count')::int), 0) FROM "
                + q
                + ".job WHERE queue = ?",
            QUEUE);
    long retries =
        longOf(
            ds,
            "SELECT coalesce(sum(greatest(attempt - 1, 0)), 0) FROM " + q + ".job WHERE queue = ?",
            QUEUE);
    long rolledBackJobs =
        longOf(
            ds,
            "SELECT count(*) FROM " + q + ".job WHERE (args->>'orderId')::bigint = ANY (?)",
            rolledBack);
    long fencedByBaton = 0;
    for (PodProcess p : pods) {
      fencedByBaton += p.counters().path("fenced").asLong();
    }
    ObjectNode j = json.putObject("jobs");
    j.put("total", jobsTotal);
    j.put("completed", jobsCompleted);
    ObjectNode st = j.putObject("states");
    states.forEach(st::put);
    j.put("of_rolled_back_orders", rolledBackJobs);
    j.put("rescued", rescued);
    j.put("retries", retries);
    j.put("stale_writes_refused_by_fence", fencedByBaton);

    double span =
        scalar(
                ds,
                "SELECT extract(epoch FROM max(finalized_at) - min(created_at)) FROM "
                    + q
                    + ".job WHERE queue = ? AND state = 'completed'",
                QUEUE)
            .doubleValue();
    json.put("throughput_jobs_per_s", span > 0 ? jobsCompleted / span : 0);
    ObjectNode lat = json.putObject("pickup_latency_ms");
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms),"
                    + " percentile_cont(0.99) WITHIN GROUP (ORDER BY ms), count(*) FROM"
                    + " (SELECT extract(epoch FROM attempted_at - scheduled_at) * 1000 AS ms FROM "
                    + q
                    + ".job WHERE queue = ? AND state = 'completed' AND attempt = 1) x")) {
      ps.setString(1, QUEUE);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        lat.put("p50", rs.getDouble(1));
        lat.put("p99", rs.getDouble(2));
        lat.put("jobs", rs.getLong(3));
      }
    }
    json.put("elapsed_s", elapsed);
    json.set("faults", faults);
    ArrayNode podsJson = json.putArray("pods");
    for (PodProcess p : pods) {
      ObjectNode po = podsJson.addObject();
      po.put("name", p.name());
      po.put("pid", p.pid());
      po.put("fate", p.fate());
      po.put("metrics_url", p.metricsUrl());
      Long scraped = completedByPod.get(p.name());
      if (scraped != null) {
        po.put("completed_per_metrics", scraped);
      }
      po.set("counters", p.counters());
    }
    if (replacementError != null) {
      json.put("replacement_error", replacementError);
    }

    // The invariants.
    r.check(
        "finished",
        finished,
        finished
            ? "every order placed and every email job finished"
            : "still unfinished after " + settings.timeout().toSeconds() + " s: " + states);
    r.check(
        "orders committed are in the database",
        ordersInDb == committed.size(),
        ordersInDb + " orders in the database, " + committed.size() + " committed");
    r.check(
        "every committed order emailed",
        committedNotEmailed == 0,
        committedNotEmailed + " committed orders without an email");
    r.check(
        "no order emailed twice",
        twice == 0 && ledgerRows == ledgerOrders,
        twice
            + " orders emailed more than once ("
            + ledgerRows
            + " emails for "
            + ledgerOrders
            + " orders)");
    r.check(
        "no email for a rolled-back order",
        rolledBackEmailed == 0 && unknownOrders == 0,
        rolledBackEmailed
            + " rolled-back orders emailed, "
            + unknownOrders
            + " emails for orders not in the database");
    r.check(
        "emails delivered == orders committed",
        provider.sent() == committed.size() && ledgerRows == committed.size(),
        provider.sent() + " delivered, " + committed.size() + " committed");
    r.check(
        "every email job completed once, none for a rolled-back order",
        jobsTotal == committed.size() && jobsCompleted == committed.size() && rolledBackJobs == 0,
        jobsCompleted
            + " of "
            + jobsTotal
            + " jobs completed for "
            + committed.size()
            + " committed orders; "
            + rolledBackJobs
            + " jobs of rolled-back orders");
    if (settings.faults()) {
      long killedKeyRows =
          killedKey == null
              ? 0
              : longOf(
                  ds,
                  "SELECT count(*) FROM " + shop + ".mail_ledger WHERE idempotency_key = ?",
                  killedKey);
      r.check(
          "kill: the email sent before the crash was not sent again",
          killDone.get() && killedKey != null && provider.replayed() > 0 && killedKeyRows == 1,
          killDone.get()
              ? killedPod
                  + " killed after sending "
                  + killedKey
                  + "; "
                  + killedKeyRows
                  + " ledger row(s) for it, "
                  + provider.replayed()
                  + " repeats suppressed by key"
              : "no pod was killed");
      r.check(
          "freeze: the frozen pod's late send was refused by fence",
          freezeDone.get() && frozenKeyResent && provider.staleRefused() > 0,
          freezeStarted.get()
              ? frozenPod
                  + " frozen "
                  + frozenMillis
                  + " ms; resent by a newer holder: "
                  + frozenKeyResent
                  + "; "
                  + provider.staleRefused()
                  + " stale sends refused"
              : "no pod was frozen");
      r.check(
          "backend kill: the pods recovered",
          backendsDone.get() && backendsTerminated > 0,
          backendsTerminated + " connections terminated");
      r.check(
          "replacement pod started",
          replacementError == null && pods.size() > settings.pods(),
          replacementError == null ? pods.size() - settings.pods() + " started" : replacementError);
    }
    long unclean =
        pods.stream()
            .filter(p -> !p.fate().equals("stopped") && !p.fate().equals("killed"))
            .count();
    r.check(
        "pods stopped cleanly",
        unclean == 0,
        unclean == 0
            ? "every live pod stopped on request and exited 0"
            : unclean + " pods did not stop cleanly");
    return r.finish();
  }

  /**
   * The first column of the one row {@code sql} returns; {@code binds} are set in order, a set of
   * ids as a {@code bigint[]}.
   */
  private static Number scalar(HikariDataSource ds, String sql, Object... binds)
      throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < binds.length; i++) {
        Object b = binds[i];
        if (b instanceof Set<?> ids) {
          Array a = c.createArrayOf("bigint", ids.toArray());
          ps.setArray(i + 1, a);
        } else {
          ps.setObject(i + 1, b);
        }
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        Object v = rs.getObject(1);
        return v == null ? 0 : (Number) v;
      }
    }
  }

  private static long longOf(HikariDataSource ds, String sql, Object... binds) throws SQLException {
    return scalar(ds, sql, binds).longValue();
  }

  private void say(String line) {
    if (tty) {
      progress.print("\r");
    }
    progress.println(line);
    progress.flush();
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }
}
