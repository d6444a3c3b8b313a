package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.admin.BatonAdmin;
import dev.baton.internal.db.ClaimedJob;
import dev.baton.internal.db.Finish;
import dev.baton.internal.db.HolderStore;
import dev.baton.internal.db.SchemaName;
import dev.baton.testing.Fixture;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A queue's cluster-wide concurrency limit (invariant 11 of DESIGN.md, for claims racing in one
 * process; {@code ConcurrencyLimitIT} adds crashes, freezes and lost connections across processes):
 * never more of the queue's jobs running than the limit, whatever the claims that race for it; jobs
 * over the limit stay available with their attempt untouched; and a queue without a limit claims
 * with the plain claim, which never waits for the queue's row.
 */
class ConcurrencyLimitTest {

  record Ping(int n) implements JobArgs {}

  @JobKind("ping")
  record CustomerPing(int n, String customer) implements JobArgs {}

  private static final String QUEUE = "limited";

  @Test
  void racingClaimsNeverRunMoreThanTheLimit() throws Exception {
    try (Fixture f = new Fixture(12)) {
      enqueue(f, QUEUE, 2_000);
      new BatonAdmin(f.dataSource(), f.schema()).limitConcurrency(QUEUE, 5, "test");
      HolderStore store = new HolderStore(SchemaName.of(f.schema()));
      AtomicBoolean done = new AtomicBoolean();
      AtomicInteger claims = new AtomicInteger();
      AtomicInteger mostAtOnce = new AtomicInteger();
      ExecutorService sampling = Executors.newSingleThreadExecutor();
      try {
        Future<?> sampler =
            sampling.submit(
                () -> {
                  while (!done.get()) {
                    int running = (int) f.count(runningOf(QUEUE));
                    mostAtOnce.accumulateAndGet(running, Math::max);
                  }
                  return null;
                });
        race(
            40,
            (n, round, allClaimed) -> {
              List<ClaimedJob> got = store.claimLimited(f.dataSource(), params("n" + n));
              claims.addAndGet(got.size());
              mostAtOnce.accumulateAndGet((int) f.count(runningOf(QUEUE)), Math::max);
              allClaimed.await(10, TimeUnit.SECONDS);
              complete(store, f, got);
            });
        done.set(true);
        sampler.get(10, TimeUnit.SECONDS);
      } finally {
        sampling.shutdownNow();
      }
      assertThat(mostAtOnce.get()).as("most jobs of the queue running at once").isEqualTo(5);
      // Each round the claimers together take exactly what the limit leaves: 5.
      assertThat(claims.get()).isEqualTo(40 * 5);
      assertThat(f.count(runningOf(QUEUE))).isZero();
      assertThat(f.count("SELECT count(*) FROM %s.job WHERE state = 'available' AND attempt > 0"))
          .as("jobs over the limit keep their attempts")
          .isZero();
    }
  }

  @Test
  void racingKeyedClaimsNeverRunTwoJobsOfAKeyAtOnceAndFillEveryKey() throws Exception {
    try (Fixture f = new Fixture(12)) {
      f.execute(
          "INSERT INTO %s.job (queue, kind, args) SELECT '"
              + QUEUE
              + "', 'ping', jsonb_build_object('customer', 'c' || (g % 20))"
              + " FROM generate_series(1, 1000) g");
      new BatonAdmin(f.dataSource(), f.schema()).limitConcurrencyPerKey(QUEUE, "customer", 1, "t");
      HolderStore store = new HolderStore(SchemaName.of(f.schema()));
      String mostOfAKey =
          "SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM %s.job"
              + " WHERE state = 'running' GROUP BY args ->> 'customer') r";
      AtomicInteger claims = new AtomicInteger();
      AtomicInteger mostAtOnce = new AtomicInteger();
      List<List<ClaimedJob>> previous = new ArrayList<>(); // per claimer, the round before's
      for (int n = 0; n < CLAIMERS; n++) {
        previous.add(List.of());
      }
      // Each round's jobs run on through the next round's claim: their keys must have no room
      // then. The last round only ends the jobs of the one before.
      race(
          21,
          (n, round, allClaimed) -> {
            List<ClaimedJob> got =
                round == 20 ? List.of() : store.claimKeyed(f.dataSource(), params("n" + n));
            claims.addAndGet(got.size());
            mostAtOnce.accumulateAndGet((int) f.count(mostOfAKey), Math::max);
            allClaimed.await(10, TimeUnit.SECONDS);
            complete(store, f, previous.get(n));
            previous.set(n, got);
          });
      assertThat(mostAtOnce.get()).as("most jobs of one key running at once").isEqualTo(1);
      // 8 claimers x 3 slots ask for 24 each round; the 20 keys leave room for 20 every other
      // round (in between, each key still runs the job of the round before)
      assertThat(claims.get()).isEqualTo(10 * 20);
      // the plain and the queue-wide claims take nothing from a queue limited per key
      assertThat(store.claim(f.dataSource(), params("x"))).isEmpty();
      assertThat(store.claimLimited(f.dataSource(), params("x"))).isEmpty();
    }
  }

  /**
   * Fair share: key A has a backlog of 20,000 jobs, key B enqueues 100 after it; a client of 4
   * slots works the queue, limited per key (to more than it can run, so only the turns matter).
   * Every B job has run while A has run fewer than 400 of its own (the keys take turns), not after
   * A's backlog.
   */
  @Test
  void aKeyEnqueuedAfterALongBacklogIsNotHeldUpByIt() {
    try (Fixture f = new Fixture()) {
      f.execute(
          "INSERT INTO %s.job (queue, kind, args) SELECT '"
              + QUEUE
              + "', 'ping', jsonb_build_object('n', g, 'customer', 'A')"
              + " FROM generate_series(1, 20000) g");
      f.execute(
          "INSERT INTO %s.job (queue, kind, args) SELECT '"
              + QUEUE
              + "', 'ping', jsonb_build_object('n', g, 'customer', 'B')"
              + " FROM generate_series(1, 100) g");
      new BatonAdmin(f.dataSource(), f.schema())
          .limitConcurrencyPerKey(QUEUE, "customer", 1_000, "t");
      AtomicInteger ranA = new AtomicInteger();
      AtomicInteger ranB = new AtomicInteger();
      AtomicInteger aWhenBDone = new AtomicInteger(-1);
      f.start(
          f.config().queue(QUEUE, 4).pollInterval(Duration.ofMillis(200)).build(),
          b ->
              b.handler(
                  CustomerPing.class,
                  (ctx, a) -> {
                    if ("B".equals(a.customer())) {
                      if (ranB.incrementAndGet() == 100) {
                        aWhenBDone.set(ranA.get());
                      }
                    } else {
                      ranA.incrementAndGet();
                    }
                  }));
      await("every job of B ran").atMost(Duration.ofSeconds(60)).until(() -> aWhenBDone.get() >= 0);
      System.out.printf(
          "fair share: key B's 100 jobs ran while key A ran %d of its 20,000%n", aWhenBDone.get());
      assertThat(aWhenBDone.get()).as("jobs of A run before B's last").isLessThan(400);
    }
  }

  /**
   * A limited claim that carries its node's completions counts the running jobs without them (they
   * end in the same commit), but only under their own fence: a completion of a job the node lost
   * (rescued and claimed again under a new fence) frees nothing.
   */
  @Test
  void aClaimCarryingCompletionsFreesTheirShareOnlyUnderTheirOwnFence() {
    try (Fixture f = new Fixture()) {
      enqueue(f, QUEUE, 10);
      new BatonAdmin(f.dataSource(), f.schema()).limitConcurrency(QUEUE, 2, "test");
      HolderStore store = new HolderStore(SchemaName.of(f.schema()));
      List<ClaimedJob> first = store.claimLimited(f.dataSource(), params("a"));
      assertThat(first).hasSize(2);
      ClaimedJob one = first.get(0);

      HolderStore.CompleteAndClaim stale =
          store.completeAndClaim(
              f.dataSource(),
              HolderStore.ClaimMode.LIMITED,
              List.of(Finish.completed(one.id(), one.fence() + 1_000)),
              params("a"));
      assertThat(stale.completed()).as("written under a fence no longer held").isEmpty();
      assertThat(stale.claimed()).as("claimed while both still run").isEmpty();

      HolderStore.CompleteAndClaim r =
          store.completeAndClaim(
              f.dataSource(),
              HolderStore.ClaimMode.LIMITED,
              List.of(Finish.completed(one.id(), one.fence())),
              params("a"));
      assertThat(r.completed()).containsExactly(one.fence());
      assertThat(r.claimed()).as("the completed job's share, claimed in its commit").hasSize(1);
      assertThat(f.count(runningOf(QUEUE))).isEqualTo(2);
    }
  }

  /** As above, per key: the key of a job completed in the claim has room in that claim. */
  @Test
  void aKeyedClaimCarryingCompletionsFreesTheirKeysOnlyUnderTheirOwnFence() {
    try (Fixture f = new Fixture()) {
      f.execute(
          "INSERT INTO %s.job (queue, kind, args) SELECT '"
              + QUEUE
              + "', 'ping', jsonb_build_object('customer', 'c1') FROM generate_series(1, 5)");
      new BatonAdmin(f.dataSource(), f.schema()).limitConcurrencyPerKey(QUEUE, "customer", 1, "t");
      HolderStore store = new HolderStore(SchemaName.of(f.schema()));
      List<ClaimedJob> first = store.claimKeyed(f.dataSource(), params("a"));
      assertThat(first).hasSize(1);
      ClaimedJob one = first.get(0);

      HolderStore.CompleteAndClaim stale =
          store.completeAndClaim(
              f.dataSource(),
              HolderStore.ClaimMode.KEYED,
              List.of(Finish.completed(one.id(), one.fence() + 1_000)),
              params("a"));
      assertThat(stale.claimed()).as("claimed while the key's job still runs").isEmpty();

      HolderStore.CompleteAndClaim r =
          store.completeAndClaim(
              f.dataSource(),
              HolderStore.ClaimMode.KEYED,
              List.of(Finish.completed(one.id(), one.fence())),
              params("a"));
      assertThat(r.completed()).containsExactly(one.fence());
      assertThat(r.claimed()).as("the key's next job, claimed in its commit").hasSize(1);
      assertThat(f.count(runningOf(QUEUE))).isEqualTo(1);
    }
  }

  /**
   * Claimers racing, each completing its jobs of the round before in the statement of its next
   * claim: never more running than the limit, sampled throughout.
   */
  @Test
  void racingClaimsCarryingCompletionsNeverRunMoreThanTheLimit() throws Exception {
    try (Fixture f = new Fixture(12)) {
      enqueue(f, QUEUE, 2_000);
      new BatonAdmin(f.dataSource(), f.schema()).limitConcurrency(QUEUE, 5, "test");
      HolderStore store = new HolderStore(SchemaName.of(f.schema()));
      AtomicInteger claims = new AtomicInteger();
      AtomicInteger mostAtOnce = new AtomicInteger();
      List<List<ClaimedJob>> previous = new ArrayList<>();
      for (int n = 0; n < CLAIMERS; n++) {
        previous.add(List.of());
      }
      race(
          30,
          (n, round, allClaimed) -> {
            List<Finish> done = new ArrayList<>();
            for (ClaimedJob j : previous.get(n)) {
              done.add(Finish.completed(j.id(), j.fence()));
            }
            HolderStore.CompleteAndClaim r =
                store.completeAndClaim(
                    f.dataSource(), HolderStore.ClaimMode.LIMITED, done, params("n" + n));
            assertThat(r.completed()).hasSize(done.size());
            claims.addAndGet(r.claimed().size());
            previous.set(n, r.claimed());
            mostAtOnce.accumulateAndGet((int) f.count(runningOf(QUEUE)), Math::max);
          });
      assertThat(mostAtOnce.get()).as("most running at once").isEqualTo(5);
      assertThat(claims.get()).as("claims made while the limit was used").isGreaterThan(30);
    }
  }

  /**
   * A limited queue's node claims again as its jobs end, whoever writes their completions (its
   * claim, or the completer on its own): the queue drains with no poll to help.
   */
  @Test
  void aLimitedQueueDrainsWithoutAPoll() {
    try (Fixture f = new Fixture()) {
      enqueue(f, QUEUE, 300);
      AtomicInteger ran = new AtomicInteger();
      AtomicInteger mostAtOnce = new AtomicInteger();
      AtomicInteger now = new AtomicInteger();
      f.start(
          f.config()
              .queue(QUEUE, 4)
              .concurrencyLimit(QUEUE, 3)
              .pollOnly(true) // no NOTIFY: only the node's own wake-ups
              .pollInterval(Duration.ofHours(1))
              .build(),
          b ->
              b.handler(
                  CustomerPing.class,
                  (ctx, a) -> {
                    mostAtOnce.accumulateAndGet(now.incrementAndGet(), Math::max);
                    now.decrementAndGet();
                    ran.incrementAndGet();
                  }));
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  f.count(runningOf(QUEUE)) == 0
                      && f.count("SELECT count(*) FROM %s.job WHERE state = 'available'") == 0);
      assertThat(ran.get()).isEqualTo(300);
      assertThat(mostAtOnce.get()).isLessThanOrEqualTo(3);
    }
  }

  @Test
  void racingClaimsNeverStartMoreThanTheRateInAWindow() throws Exception {
    try (Fixture f = new Fixture(12)) {
      enqueue(f, QUEUE, 500);
      new BatonAdmin(f.dataSource(), f.schema())
          .limitRate(QUEUE, 10, Duration.ofHours(1), "test"); // one window for the whole test
      HolderStore store = new HolderStore(SchemaName.of(f.schema()));
      AtomicInteger claims = new AtomicInteger();
      race(
          5,
          (n, round, allClaimed) -> {
            List<ClaimedJob> got = store.claimLimited(f.dataSource(), params("n" + n));
            claims.addAndGet(got.size());
            complete(store, f, got); // running jobs do not matter to a rate
          });
      assertThat(claims.get()).as("starts in the window").isEqualTo(10);
      assertThat(f.count("SELECT count(*) FROM %s.queue_start")).isEqualTo(10);
    }
  }

  /**
   * A rate limit per key: racing claimers start exactly the rate of each key in the window, and a
   * start recorded without a key (a client of schema version 9 or 10) counts against every key.
   */
  @Test
  void racingClaimsNeverStartMoreThanTheRateOfAKeyInAWindow() throws Exception {
    try (Fixture f = new Fixture(12)) {
      f.execute(
          "INSERT INTO %s.job (queue, kind, args) SELECT '"
              + QUEUE
              + "', 'ping', jsonb_build_object('customer', 'c' || (g % 4))"
              + " FROM generate_series(1, 400) g");
      new BatonAdmin(f.dataSource(), f.schema())
          .limitRatePerKey(QUEUE, "customer", 3, Duration.ofHours(1), "test"); // one window
      HolderStore store = new HolderStore(SchemaName.of(f.schema()));
      AtomicInteger claims = new AtomicInteger();
      race(
          5,
          (n, round, allClaimed) -> {
            HolderStore.CompleteAndClaim r =
                store.completeAndClaim(
                    f.dataSource(), HolderStore.ClaimMode.KEYED, List.of(), params("n" + n));
            claims.addAndGet(r.claimed().size());
            complete(store, f, r.claimed()); // running jobs do not matter to a rate
          });
      assertThat(claims.get()).as("starts in the window, 3 of each of 4 keys").isEqualTo(12);
      assertThat(
              f.count(
                  "SELECT count(DISTINCT key) FROM %s.queue_start"
                      + " WHERE key IN ('c0', 'c1', 'c2', 'c3')"))
          .isEqualTo(4);

      f.execute(
          "INSERT INTO %s.job (queue, kind, args) SELECT '"
              + QUEUE
              + "', 'ping', jsonb_build_object('customer', 'c9') FROM generate_series(1, 5)");
      f.execute("INSERT INTO %s.queue_start (queue, at) VALUES ('" + QUEUE + "', now())");
      assertThat(
              store
                  .completeAndClaim(
                      f.dataSource(), HolderStore.ClaimMode.KEYED, List.of(), params("x"))
                  .claimed())
          .as("a new key's room, less one start without a key")
          .hasSize(2);
      // the plain and the queue-wide claims take nothing from a queue rate-limited per key
      assertThat(store.claim(f.dataSource(), params("x"))).isEmpty();
    }
  }

  @Test
  void thePlainClaimTakesNothingFromALimitedQueueNorDoesTheClaimOnEnqueue() {
    try (Fixture f = new Fixture()) {
      enqueue(f, QUEUE, 3);
      new BatonAdmin(f.dataSource(), f.schema()).limitConcurrency(QUEUE, 2, "test");
      HolderStore store = new HolderStore(SchemaName.of(f.schema()));
      assertThat(store.claim(f.dataSource(), params("a"))).isEmpty();
      assertThat(store.claimLimited(f.dataSource(), params("a"))).hasSize(2);
      assertThat(store.claimLimited(f.dataSource(), params("b"))).isEmpty();

      Baton baton =
          f.start(
              f.config().queue(QUEUE, 4).pollOnly(true).pollInterval(Duration.ofHours(1)).build(),
              b -> b.handler(Ping.class, (ctx, a) -> Fixture.blockUntilInterrupted()));
      EnqueueResult r = baton.enqueue(new Ping(9), EnqueueOptions.builder().queue(QUEUE).build());
      assertThat(r.job().state())
          .as("claim on enqueue in a limited queue")
          .isEqualTo(JobState.AVAILABLE);
      assertThat(f.count(runningOf(QUEUE))).isEqualTo(2);
    }
  }

  @Test
  void aLimitSetOrRaisedAtRunTimeReachesARunningNode() {
    try (Fixture f = new Fixture()) {
      BatonAdmin admin = new BatonAdmin(f.dataSource(), f.schema());
      Baton baton =
          f.start(
              f.config().queue(QUEUE, 6).pollInterval(Duration.ofMillis(200)).build(),
              b -> b.handler(Ping.class, (ctx, a) -> Fixture.blockUntilInterrupted()));
      admin.limitConcurrency(QUEUE, 2, "test");
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  admin.queues().stream()
                      .anyMatch(q -> Integer.valueOf(2).equals(q.concurrencyLimit())));
      for (int i = 0; i < 10; i++) {
        baton.enqueue(new Ping(i), EnqueueOptions.builder().queue(QUEUE).build());
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> f.count(runningOf(QUEUE)) == 2);
      admin.limitConcurrency(QUEUE, 4, "test");
      await().atMost(Duration.ofSeconds(10)).until(() -> f.count(runningOf(QUEUE)) == 4);
      admin.removeConcurrencyLimit(QUEUE, "test");
      await().atMost(Duration.ofSeconds(10)).until(() -> f.count(runningOf(QUEUE)) == 6);
      assertThat(f.count(runningOf(QUEUE))).isEqualTo(6);
    }
  }

  /**
   * A queue without a limit pays nothing for limits: its node claims (and completes with its
   * claims) while another transaction holds its row in the queue table locked, which every claim of
   * a limited queue would wait for; and the plain claim's plan reads no running job.
   */
  @Test
  void aQueueWithoutALimitClaimsWithoutWaitingForItsRow() throws Exception {
    try (Fixture f = new Fixture()) {
      f.execute("INSERT INTO %s.queue (name) VALUES ('free')");
      try (Connection holder = f.dataSource().getConnection()) {
        holder.setAutoCommit(false);
        try (Statement st = holder.createStatement()) {
          st.execute("SELECT 1 FROM " + f.schema() + ".queue WHERE name = 'free' FOR UPDATE");
        }
        AtomicInteger ran = new AtomicInteger();
        Baton baton =
            f.start(
                f.config().queue("free", 4).build(),
                b -> b.handler(Ping.class, (ctx, a) -> ran.incrementAndGet()));
        for (int i = 0; i < 50; i++) {
          baton.enqueue(new Ping(i), EnqueueOptions.builder().queue("free").build());
        }
        await("50 jobs run while the queue's row is locked")
            .atMost(Duration.ofSeconds(20))
            .until(() -> ran.get() == 50);
        holder.rollback();
      }
      try (Connection c = f.dataSource().getConnection();
          Statement st = c.createStatement()) {
        st.execute("SET plan_cache_mode = force_generic_plan");
        st.execute(
            "PREPARE plain_claim(text, text, int, text, bigint, text[], bigint[], bigint, bigint) AS "
                + plainClaimSql(f));
        StringBuilder plan = new StringBuilder();
        try (ResultSet rs =
            st.executeQuery(
                "EXPLAIN EXECUTE plain_claim('free', 'free', 5, 'n', 1000, '{}', '{}', 1000, 1000)")) {
          while (rs.next()) {
            plan.append(rs.getString(1)).append('\n');
          }
        }
        assertThat(plan.toString())
            .doesNotContain("job_running_idx")
            .doesNotContain("claim_admits")
            .doesNotContain("LockRows on queue");
      }
    }
  }

  private static String plainClaimSql(Fixture f) throws Exception {
    java.lang.reflect.Field claim = HolderStore.class.getDeclaredField("claim");
    claim.setAccessible(true);
    String sql = (String) claim.get(new HolderStore(SchemaName.of(f.schema())));
    StringBuilder numbered = new StringBuilder();
    int n = 0;
    for (char ch : sql.toCharArray()) {
      if (ch == '?') {
        numbered.append('$').append(++n);
      } else {
        numbered.append(ch);
      }
    }
    return numbered.toString();
  }

  private static final int CLAIMERS = 8;

  /** One claimer's round; {@code allClaimed} is the barrier every claimer of the round meets. */
  private interface Round {
    void run(int claimer, int round, CyclicBarrier allClaimed) throws Exception;
  }

  /** Runs {@code rounds} rounds of {@link #CLAIMERS} claimers, each round begun by all at once. */
  private static void race(int rounds, Round body) throws Exception {
    CyclicBarrier start = new CyclicBarrier(CLAIMERS);
    ExecutorService pool = Executors.newFixedThreadPool(CLAIMERS);
    try {
      List<Future<?>> workers = new ArrayList<>();
      for (int w = 0; w < CLAIMERS; w++) {
        int n = w;
        workers.add(
            pool.submit(
                () -> {
                  for (int round = 0; round < rounds; round++) {
                    start.await(10, TimeUnit.SECONDS);
                    body.run(n, round, start);
                  }
                  return null;
                }));
      }
      for (Future<?> w : workers) {
        w.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private static void complete(HolderStore store, Fixture f, List<ClaimedJob> jobs) {
    List<Finish> finishes = new ArrayList<>();
    for (ClaimedJob j : jobs) {
      finishes.add(Finish.completed(j.id(), j.fence()));
    }
    store.finishIfHeld(f.dataSource(), finishes);
  }

  private static String runningOf(String queue) {
    return "SELECT count(*) FROM %s.job WHERE state = 'running' AND queue = '" + queue + "'";
  }

  private static HolderStore.ClaimParams params(String node) {
    return new HolderStore.ClaimParams(
        QUEUE, 3, node, Duration.ofMinutes(1), new String[0], new Long[0], Duration.ofMinutes(1));
  }

  private static void enqueue(Fixture f, String queue, int n) {
    f.execute(
        "INSERT INTO %s.job (queue, kind, args) SELECT '"
            + queue
            + "', 'ping', '{}'::jsonb FROM generate_series(1, "
            + n
            + ")");
  }
}
