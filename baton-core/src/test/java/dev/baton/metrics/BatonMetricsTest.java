package dev.baton.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.Counters;
import dev.baton.EnqueueOptions;
import dev.baton.InvalidConfigException;
import dev.baton.JobArgs;
import dev.baton.JobState;
import dev.baton.RetryPolicy;
import dev.baton.testing.Fixture;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.distribution.pause.PauseDetector;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The meters of {@link BatonMetrics}: all documented ones exist, and each one moves as it says. */
class BatonMetricsTest {

  record Work(int n) implements JobArgs {}

  record Failing(int n) implements JobArgs {}

  private static final RetryPolicy FAST = (attempt, e) -> Duration.ofMillis(20);

  /** The meter names in docs/metrics.md's meter table, so the doc and the code cannot drift. */
  static Set<String> documentedMeters() throws IOException {
    String doc = Files.readString(Path.of("..", "docs", "metrics.md"));
    Set<String> names = new TreeSet<>();
    Matcher m = Pattern.compile("(?m)^\\| `(baton\\.[a-z.]+)` \\|").matcher(doc);
    while (m.find()) {
      names.add(m.group(1));
    }
    return names;
  }

  @Test
  void everyDocumentedMeterExistsAfterBindingAndNoUndocumentedOne() throws IOException {
    Set<String> documented = documentedMeters();
    assertThat(documented).hasSizeGreaterThanOrEqualTo(18).contains("baton.jobs.fenced");
    try (Fixture f = new Fixture()) {
      Baton baton =
          f.start(
              f.config().queue("default", 2).build(), b -> b.handler(Work.class, (ctx, a) -> {}));
      f.execute("INSERT INTO %s.queue (name, backlog_cap) VALUES ('default', 100)");
      dev.baton.admin.BatonAdmin admin = new dev.baton.admin.BatonAdmin(f.dataSource(), f.schema());
      admin.limitConcurrencyPerKey("keyed", "customer", 1, "t");
      admin.limitRate("rated", 5, Duration.ofSeconds(1), "t");
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      try (BatonMetrics metrics = new BatonMetrics(baton)) {
        metrics.bindTo(registry);
        // and the backlog cap and limit gauges with the first read that finds one
        Set<String> timers =
            Set.of(
                "baton.job.pickup.latency",
                "baton.job.run.time",
                "baton.job.attempts",
                "baton.queue.backlog.cap",
                "baton.queue.limit.key",
                "baton.queue.limit.key.running",
                "baton.queue.limit.key.full",
                "baton.queue.limit.rate",
                "baton.queue.limit.rate.period",
                "baton.queue.limit.rate.used");
        for (String name : documented) {
          if (!timers.contains(name)) {
            assertThat(registry.find(name).meters())
                .as("meter %s after binding", name)
                .isNotEmpty();
          }
        }
        // the timers and attempt counters appear with the first job of a queue and kind
        long id = f.reader().enqueue(new Work(1)).job().id();
        await().atMost(Duration.ofSeconds(15)).until(() -> f.job(id).state() == JobState.COMPLETED);
        metrics.refresh();
        for (String name : documented) {
          assertThat(registry.find(name).meters()).as("meter %s after a job", name).isNotEmpty();
        }
        Set<String> registered = new TreeSet<>();
        for (Meter meter : registry.getMeters()) {
          registered.add(meter.getId().getName());
        }
        assertThat(registered).as("every meter is documented").isSubsetOf(documented);
      }
    }
  }

  @Test
  void aLimitedQueueShowsItsLimitAndTheJobsWaitingForIt() {
    try (Fixture f = new Fixture()) {
      Baton reader = f.reader();
      for (int i = 0; i < 6; i++) {
        reader.enqueue(new Work(i), EnqueueOptions.builder().queue("mail").build());
      }
      f.execute(
          "UPDATE %s.job SET state = 'running', lease_expires_at = now() + interval '1 hour'"
              + " WHERE id IN (SELECT min(id) FROM %s.job)");
      new dev.baton.admin.BatonAdmin(f.dataSource(), f.schema()).limitConcurrency("mail", 3, "t");
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      try (BatonMetrics metrics =
          BatonMetrics.builder(reader).refreshInterval(Duration.ofHours(1)).build()) {
        metrics.bindTo(registry);
        metrics.refresh();
        assertThat(registry.get("baton.queue.limit").tag("queue", "mail").gauge().value())
            .isEqualTo(3);
        // 5 available, 1 running of 3: 2 free, 3 waiting for the limit
        assertThat(registry.get("baton.queue.limit.waiting").tag("queue", "mail").gauge().value())
            .isEqualTo(3);
      }
    }
  }

  @Test
  void aQueueLimitedPerKeyOrByRateShowsWhatIsInUseAndTheJobsWaiting() {
    try (Fixture f = new Fixture()) {
      Baton reader = f.reader();
      // keyed: acme runs 1 (its limit) with 2 more available, bob has 1 available
      f.execute(
          "INSERT INTO %s.job (queue, kind, args, state, lease_expires_at, attempt) VALUES"
              + " ('sync', 'x', '{\"customer\": \"acme\"}', 'running',"
              + " now() + interval '1 hour', 1)");
      f.execute(
          "INSERT INTO %s.job (queue, kind, args) VALUES ('sync', 'x', '{\"customer\":"
              + " \"acme\"}'), ('sync', 'x', '{\"customer\": \"acme\"}'),"
              + " ('sync', 'x', '{\"customer\": \"bob\"}')");
      // rate: 4 of 5 starts used in the last 30 s, 3 available
      f.execute(
          "INSERT INTO %s.queue_start (queue, at) SELECT 'mail', now() - interval '1 second'"
              + " FROM generate_series(1, 4)");
      for (int i = 0; i < 3; i++) {
        reader.enqueue(new Work(i), EnqueueOptions.builder().queue("mail").build());
      }
      dev.baton.admin.BatonAdmin admin = new dev.baton.admin.BatonAdmin(f.dataSource(), f.schema());
      admin.limitConcurrencyPerKey("sync", "customer", 1, "t");
      admin.limitRate("mail", 5, Duration.ofSeconds(30), "t");
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      try (BatonMetrics metrics =
          BatonMetrics.builder(reader).refreshInterval(Duration.ofHours(1)).build()) {
        metrics.bindTo(registry);
        metrics.refresh();
        assertThat(gauge(registry, "baton.queue.limit.key", "sync")).isEqualTo(1);
        assertThat(gauge(registry, "baton.queue.limit.key.running", "sync")).isEqualTo(1);
        assertThat(gauge(registry, "baton.queue.limit.key.full", "sync")).isEqualTo(1);
        assertThat(gauge(registry, "baton.queue.limit.waiting", "sync"))
            .as("acme's 2")
            .isEqualTo(2);
        assertThat(gauge(registry, "baton.queue.limit", "sync")).isNaN();
        assertThat(gauge(registry, "baton.queue.limit.rate", "mail")).isEqualTo(5);
        assertThat(gauge(registry, "baton.queue.limit.rate.period", "mail")).isEqualTo(30);
        assertThat(gauge(registry, "baton.queue.limit.rate.used", "mail")).isEqualTo(4);
        assertThat(gauge(registry, "baton.queue.limit.waiting", "mail"))
            .as("1 start left")
            .isEqualTo(2);
        assertThat(registry.find("baton.queue.limit.rate").tag("queue", "sync").gauge()).isNull();
        // removed: NaN, and nothing waits
        admin.removeRateLimit("mail", "t");
        admin.removeConcurrencyLimitPerKey("sync", "t");
        metrics.refresh();
        assertThat(gauge(registry, "baton.queue.limit.rate", "mail")).isNaN();
        assertThat(gauge(registry, "baton.queue.limit.rate.used", "mail")).isNaN();
        assertThat(gauge(registry, "baton.queue.limit.key.full", "sync")).isNaN();
        assertThat(gauge(registry, "baton.queue.limit.waiting", "sync")).isZero();
      }
    }
  }

  private static double gauge(SimpleMeterRegistry registry, String name, String queue) {
    return registry.get(name).tag("queue", queue).gauge().value();
  }

  @Test
  void anOlderReadOfTheRefreshThreadDoesNotOverwriteANewerRefresh() throws Exception {
    try (Fixture f = new Fixture()) {
      for (int i = 0; i < 3; i++) {
        f.reader().enqueue(new Work(i), EnqueueOptions.builder().queue("mail").build());
      }
      // The refresh thread's first read (at bind) reads the queue's stats, then waits before its
      // next statement until this test's own refresh has returned (2 s at most).
      java.util.concurrent.CountDownLatch refreshed = new java.util.concurrent.CountDownLatch(1);
      java.util.concurrent.CountDownLatch threadRead = new java.util.concurrent.CountDownLatch(1);
      java.util.concurrent.atomic.AtomicInteger threadConnections =
          new java.util.concurrent.atomic.AtomicInteger();
      javax.sql.DataSource slowForTheThread =
          (javax.sql.DataSource)
              java.lang.reflect.Proxy.newProxyInstance(
                  BatonMetricsTest.class.getClassLoader(),
                  new Class<?>[] {javax.sql.DataSource.class},
                  (proxy, method, args) -> {
                    if (method.getName().equals("getConnection")
                        && Thread.currentThread().getName().equals("baton-metrics")
                        && threadConnections.incrementAndGet() == 2) {
                      threadRead.countDown();
                      refreshed.await(2, TimeUnit.SECONDS);
                    }
                    try {
                      return method.invoke(f.dataSource(), args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                      throw e.getCause();
                    }
                  });
      try (Baton client =
              Baton.builder(slowForTheThread)
                  .config(
                      dev.baton.BatonConfig.builder()
                          .schema(f.schema())
                          .allowUnknownKinds(true)
                          .build())
                  .build();
          BatonMetrics metrics =
              BatonMetrics.builder(client).refreshInterval(Duration.ofHours(1)).build()) {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        metrics.bindTo(registry);
        assertThat(threadRead.await(10, TimeUnit.SECONDS)).as("the thread's first read").isTrue();
        f.execute("DELETE FROM %s.job WHERE queue = 'mail'");
        f.reader().enqueue(new Work(9), EnqueueOptions.builder().queue("mail").build());
        metrics.refresh();
        refreshed.countDown();
        await()
            .during(Duration.ofMillis(300))
            .atMost(Duration.ofSeconds(5))
            .until(() -> depth(registry, "mail", "available") == 1.0);
      }
    }
  }

  @Test
  void depthAndOldestAgeReflectInsertedJobs() {
    try (Fixture f = new Fixture()) {
      Baton reader = f.reader();
      for (int i = 0; i < 5; i++) {
        reader.enqueue(new Work(i), EnqueueOptions.builder().queue("mail").build());
      }
      for (int i = 0; i < 2; i++) {
        reader.enqueue(
            new Work(9),
            EnqueueOptions.builder().queue("mail").runAt(Instant.now().plusSeconds(3600)).build());
      }
      long retry =
          reader.enqueue(new Work(10), EnqueueOptions.builder().queue("mail").build()).job().id();
      f.execute(
          "UPDATE %s.job SET state = 'retryable', scheduled_at = now() + interval '1 hour'"
              + " WHERE id = "
              + retry);
      // the oldest available job became due 2 minutes ago
      f.execute(
          "UPDATE %s.job SET scheduled_at = now() - interval '120 seconds' WHERE id = (SELECT"
              + " min(id) FROM %s.job)");
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      try (BatonMetrics metrics =
          BatonMetrics.builder(reader).refreshInterval(Duration.ofHours(1)).build()) {
        metrics.bindTo(registry);
        metrics.refresh();
        assertThat(depth(registry, "mail", "available")).isEqualTo(5);
        assertThat(depth(registry, "mail", "scheduled")).isEqualTo(2);
        assertThat(depth(registry, "mail", "retryable")).isEqualTo(1);
        assertThat(depth(registry, "mail", "running")).isZero();
        assertThat(
                registry
                    .get("baton.queue.oldest.available.age")
                    .tag("queue", "mail")
                    .gauge()
                    .value())
            .isBetween(119.0, 180.0);
        assertThat(registry.get("baton.stats.age").gauge().value()).isBetween(0.0, 30.0);
        assertThat(registry.find("baton.queue.backlog.cap").meters()).isEmpty();

        // a later read sees a new queue, the changed depth and a backlog cap
        reader.enqueue(new Work(11), EnqueueOptions.builder().queue("other").build());
        f.execute("INSERT INTO %s.queue (name, backlog_cap) VALUES ('mail', 500)");
        f.execute("DELETE FROM %s.job WHERE queue = 'mail' AND state = 'available'");
        metrics.refresh();
        assertThat(depth(registry, "mail", "available")).isZero();
        assertThat(
                registry
                    .get("baton.queue.oldest.available.age")
                    .tag("queue", "mail")
                    .gauge()
                    .value())
            .isZero();
        assertThat(depth(registry, "other", "available")).isEqualTo(1);
        assertThat(registry.get("baton.queue.backlog.cap").tag("queue", "mail").gauge().value())
            .isEqualTo(500);
        f.execute("UPDATE %s.queue SET backlog_cap = NULL");
        metrics.refresh();
        assertThat(registry.get("baton.queue.backlog.cap").tag("queue", "mail").gauge().value())
            .isNaN();
      }
    }
  }

  @Test
  void theRefreshThreadUpdatesTheGaugesWithoutAScrapeQuerying() {
    try (Fixture f = new Fixture()) {
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      try (BatonMetrics metrics =
          BatonMetrics.builder(f.reader()).refreshInterval(Duration.ofMillis(100)).build()) {
        metrics.bindTo(registry);
        f.reader().enqueue(new Work(1), EnqueueOptions.builder().queue("q1").build());
        await()
            .atMost(Duration.ofSeconds(10))
            .until(
                () ->
                    registry
                                .find("baton.queue.depth")
                                .tags("queue", "q1", "state", "available")
                                .gauge()
                            != null
                        && depth(registry, "q1", "available") == 1);
        assertThat(Thread.getAllStackTraces().keySet())
            .filteredOn(t -> t.getName().equals("baton-metrics"))
            .isNotEmpty()
            .allMatch(Thread::isDaemon);
      }
      await()
          .atMost(Duration.ofSeconds(5))
          .alias("close stops the thread")
          .until(() -> noMetricsThread());
    }
  }

  private static boolean noMetricsThread() {
    return Thread.getAllStackTraces().keySet().stream()
        .noneMatch(t -> t.getName().equals("baton-metrics") && t.isAlive());
  }

  @Test
  void countersTimersAndFailureShareMoveWhenJobsCompleteAndFail() {
    try (Fixture f = new Fixture()) {
      Baton baton =
          f.start(
              f.config().queue("default", 4).retryPolicy(FAST).build(),
              b ->
                  b.handler(
                          Work.class,
                          (ctx, a) -> {
                            Thread.sleep(30); // the work whose run time is measured
                          })
                      .handler(
                          Failing.class,
                          (ctx, a) -> {
                            throw new IllegalStateException("boom");
                          }));
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      try (BatonMetrics metrics =
          BatonMetrics.builder(baton).refreshInterval(Duration.ofHours(1)).build()) {
        metrics.bindTo(registry);
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
          ids.add(f.reader().enqueue(new Work(i)).job().id());
        }
        long failing =
            f.reader()
                .enqueue(new Failing(1), EnqueueOptions.builder().maxAttempts(2).build())
                .job()
                .id();
        await()
            .atMost(Duration.ofSeconds(20))
            .until(
                () ->
                    ids.stream().allMatch(id -> f.job(id).state() == JobState.COMPLETED)
                        && f.job(failing).state() == JobState.DISCARDED);
        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> counter(registry, "baton.jobs.discarded") == 1);

        Counters c = baton.counters();
        assertThat(counter(registry, "baton.jobs.completed")).isEqualTo(3).isEqualTo(c.completed());
        assertThat(counter(registry, "baton.jobs.retried")).isEqualTo(1).isEqualTo(c.retried());
        assertThat(counter(registry, "baton.jobs.claimed")).isEqualTo(5).isEqualTo(c.claimed());
        assertThat(counter(registry, "baton.jobs.fenced")).isZero();
        assertThat(
                registry.get("baton.jobs.completed").tag("node", baton.nodeId()).functionCounter())
            .isNotNull();

        Timer run = registry.get("baton.job.run.time").tag("kind", "work").timer();
        assertThat(run.count()).isEqualTo(3);
        assertThat(run.totalTime(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(90);
        assertThat(registry.get("baton.job.run.time").tag("kind", "failing").timer().count())
            .isEqualTo(2);
        Timer pickup =
            registry
                .get("baton.job.pickup.latency")
                .tags("queue", "default", "kind", "work")
                .timer();
        assertThat(pickup.count()).isEqualTo(3);
        assertThat(pickup.max(TimeUnit.SECONDS)).isLessThan(15);

        metrics.refresh();
        // 2 failed attempts, 3 completions
        assertThat(share(registry, "default", "5m")).isCloseTo(0.4, within());
        assertThat(share(registry, "default", "1h")).isCloseTo(0.4, within());
        await().atMost(Duration.ofSeconds(15)).until(() -> gauge(registry, "baton.leader") == 1);
        assertThat(gauge(registry, "baton.jobs.running")).isZero();
      }
    }
  }

  @Test
  void attemptsAreCountedByQueueKindAndOutcome() {
    try (Fixture f = new Fixture()) {
      Baton baton =
          f.start(
              f.config().queue("default", 2).retryPolicy(FAST).build(),
              b ->
                  b.handler(Work.class, (ctx, a) -> {})
                      .handler(
                          Failing.class,
                          (ctx, a) -> {
                            throw new IllegalStateException("boom");
                          }));
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      try (BatonMetrics metrics =
          BatonMetrics.builder(baton).refreshInterval(Duration.ofHours(1)).build()) {
        metrics.bindTo(registry);
        long work = f.reader().enqueue(new Work(1)).job().id();
        long failing =
            f.reader()
                .enqueue(new Failing(1), EnqueueOptions.builder().maxAttempts(2).build())
                .job()
                .id();
        await()
            .atMost(Duration.ofSeconds(20))
            .until(
                () ->
                    f.job(work).state() == JobState.COMPLETED
                        && f.job(failing).state() == JobState.DISCARDED);

        assertThat(attempts(registry, "work", "succeeded")).isEqualTo(1);
        assertThat(attempts(registry, "work", "failed")).isZero();
        assertThat(attempts(registry, "failing", "failed")).isEqualTo(2);
        assertThat(attempts(registry, "failing", "succeeded")).isZero();
        assertThat(
                registry
                    .get("baton.job.attempts")
                    .tags("queue", "default", "kind", "failing", "node", baton.nodeId())
                    .counters())
            .hasSize(5);
      }
    }
  }

  private static double attempts(SimpleMeterRegistry registry, String kind, String outcome) {
    return registry
        .get("baton.job.attempts")
        .tags("queue", "default", "kind", kind, "outcome", outcome)
        .counter()
        .count();
  }

  @Test
  void pickupLatencyCountsFromWhenTheJobBecameDue() {
    try (Fixture f = new Fixture()) {
      long id = f.reader().enqueue(new Work(1)).job().id();
      f.execute("UPDATE %s.job SET scheduled_at = now() - interval '20 seconds' WHERE id = " + id);
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      try (Baton baton =
              Baton.builder(f.dataSource())
                  .config(f.config().queue("default", 1).build())
                  .handler(Work.class, (ctx, a) -> {})
                  .build();
          BatonMetrics metrics = BatonMetrics.builder(baton).queueStats(false).build()) {
        metrics.bindTo(registry); // before start, so the first claim is recorded
        baton.start();
        await().atMost(Duration.ofSeconds(15)).until(() -> f.job(id).state() == JobState.COMPLETED);
        Timer pickup = registry.get("baton.job.pickup.latency").timer();
        assertThat(pickup.count()).isEqualTo(1);
        assertThat(pickup.max(TimeUnit.SECONDS)).isBetween(19.5, 40.0);
        assertThat(registry.find("baton.queue.depth").meters()).as("queueStats(false)").isEmpty();
        assertThat(registry.find("baton.stats.age").meters()).isEmpty();
      }
    }
  }

  @Test
  void timersPublishPercentileHistogramsOnlyWhenAskedTo() {
    try (Fixture f = new Fixture()) {
      Baton baton =
          f.start(
              f.config().queue("default", 2).build(), b -> b.handler(Work.class, (ctx, a) -> {}));

      assertThat(runTimerHistogram(f, BatonMetrics.builder(baton).queueStats(false), 1)).isFalse();
      assertThat(
              runTimerHistogram(
                  f, BatonMetrics.builder(baton).queueStats(false).percentileHistograms(true), 2))
          .isTrue();
    }
  }

  /**
   * Whether the run timer of one job run while {@code b}'s binder is bound was registered with a
   * percentile histogram (a SimpleMeterRegistry computes no buckets, so the registry is asked).
   */
  private static boolean runTimerHistogram(Fixture f, BatonMetrics.Builder b, int n) {
    Map<String, Boolean> histogram = new ConcurrentHashMap<>();
    SimpleMeterRegistry registry =
        new SimpleMeterRegistry() {
          @Override
          protected Timer newTimer(
              Meter.Id id, DistributionStatisticConfig config, PauseDetector pauseDetector) {
            histogram.put(id.getName(), Boolean.TRUE.equals(config.isPercentileHistogram()));
            return super.newTimer(id, config, pauseDetector);
          }
        };
    try (BatonMetrics metrics = b.build()) {
      metrics.bindTo(registry);
      f.reader().enqueue(new Work(n));
      await()
          .atMost(Duration.ofSeconds(15))
          .until(() -> histogram.containsKey("baton.job.run.time"));
      return histogram.get("baton.job.run.time");
    }
  }

  @Test
  void closeRemovesTheMetersAndTheHook() {
    try (Fixture f = new Fixture()) {
      Baton baton =
          f.start(
              f.config().queue("default", 1).build(), b -> b.handler(Work.class, (ctx, a) -> {}));
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      BatonMetrics metrics = new BatonMetrics(baton);
      metrics.bindTo(registry);
      assertThatThrownBy(() -> new BatonMetrics(baton).bindTo(new SimpleMeterRegistry()))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("another BatonMetrics");
      assertThat(baton.internals().counters().listener).isNotNull();
      metrics.close();
      metrics.close();
      assertThat(registry.getMeters()).isEmpty();
      assertThat(baton.internals().counters().listener).isNull();
      assertThatThrownBy(() -> metrics.bindTo(registry)).isInstanceOf(IllegalStateException.class);
      // and a new binder may bind now
      try (BatonMetrics again = new BatonMetrics(baton)) {
        again.bindTo(registry);
        assertThat(registry.find("baton.jobs.completed").meters()).hasSize(1);
      }
    }
  }

  @Test
  void refreshIntervalOutOfRangeIsRejectedNamingTheProperty() {
    try (Fixture f = new Fixture()) {
      for (Duration bad : new Duration[] {null, Duration.ofMillis(99), Duration.ofHours(2)}) {
        assertThatThrownBy(() -> BatonMetrics.builder(f.reader()).refreshInterval(bad))
            .isInstanceOfSatisfying(
                InvalidConfigException.class,
                e -> assertThat(e.property()).isEqualTo("refreshInterval"));
      }
    }
  }

  private static org.assertj.core.data.Offset<Double> within() {
    return org.assertj.core.data.Offset.offset(1e-9);
  }

  private static double depth(SimpleMeterRegistry r, String queue, String state) {
    return r.get("baton.queue.depth").tags("queue", queue, "state", state).gauge().value();
  }

  private static double share(SimpleMeterRegistry r, String queue, String window) {
    return r.get("baton.queue.failure.share")
        .tags("queue", queue, "window", window)
        .gauge()
        .value();
  }

  private static double counter(SimpleMeterRegistry r, String name) {
    FunctionCounter c = r.get(name).functionCounter();
    return c.count();
  }

  private static double gauge(SimpleMeterRegistry r, String name) {
    Gauge g = r.get(name).gauge();
    return g.value();
  }
}
