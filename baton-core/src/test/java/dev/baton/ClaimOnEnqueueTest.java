package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testing.Fixture;
import java.sql.Connection;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Claim on enqueue: a job enqueued (on the client's own pool) by a started client that works its
 * queue and has a free slot is inserted already claimed by that client, and runs there without a
 * NOTIFY or a claim statement. It never overtakes a job waiting ahead of it, never fills a busy
 * node, never runs before the caller's transaction commits, never starts in a paused queue, and
 * leaves nothing running unheld when the client stops meanwhile (stop waits for the insert and
 * hands its job back).
 *
 * <p>Workers here poll once an hour and do not LISTEN, so a job not claimed in the insert waits for
 * the enqueuing client's local wake-up.
 */
class ClaimOnEnqueueTest {

  record Ping(int n) implements JobArgs {}

  record Other(int n) implements JobArgs {}

  private static final Duration HOUR = Duration.ofHours(1);

  private static BatonConfig.Builder quiet(Fixture f, int slots) {
    return f.config().queue("default", slots).pollOnly(true).pollInterval(HOUR);
  }

  @Test
  void aFreeSlotClaimsTheJobInTheInsertAndRunsIt() {
    try (Fixture f = new Fixture()) {
      Baton baton = f.start(quiet(f, 2).build(), b -> b.handler(Ping.class, (ctx, a) -> {}));
      EnqueueResult r = baton.enqueue(new Ping(1));
      assertThat(r.job().state()).isEqualTo(JobState.RUNNING);
      assertThat(r.job().attempt()).isEqualTo(1);
      assertThat(r.job().attemptedBy()).isEqualTo(baton.nodeId());
      assertThat(r.job().fence()).isPositive();
      assertThat(r.job().leaseExpiresAt()).isNotNull();
      assertThat(r.job().deadlineAt()).isNotNull();
      long id = r.job().id();
      await().atMost(Duration.ofSeconds(10)).until(() -> f.job(id).state() == JobState.COMPLETED);
      assertThat(f.job(id).fence()).isEqualTo(r.job().fence());
      assertThat(baton.counters().claimed()).isEqualTo(1);
    }
  }

  @Test
  void aJobWaitingAheadInTheQueueIsNotOvertaken() {
    try (Fixture f = new Fixture()) {
      Baton baton = f.start(quiet(f, 2).build(), b -> b.handler(Ping.class, (ctx, a) -> {}));
      // Enqueued by another client: the worker hears nothing of it (no LISTEN, hourly poll).
      long ahead = f.reader().enqueue(new Ping(0)).job().id();
      EnqueueResult r = baton.enqueue(new Ping(1));
      assertThat(r.job().state())
          .as("the later job, with one waiting ahead")
          .isEqualTo(JobState.AVAILABLE);
      // The local wake-up claims both, the older first.
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  f.job(ahead).state() == JobState.COMPLETED
                      && f.job(r.job().id()).state() == JobState.COMPLETED);
    }
  }

  @Test
  void aBusyNodeLeavesTheJobToAnyNode() throws Exception {
    try (Fixture f = new Fixture()) {
      CountDownLatch release = new CountDownLatch(1);
      Baton baton =
          f.start(quiet(f, 1).build(), b -> b.handler(Ping.class, (ctx, a) -> release.await()));
      EnqueueResult first = baton.enqueue(new Ping(1));
      assertThat(first.job().state()).isEqualTo(JobState.RUNNING);
      EnqueueResult second = baton.enqueue(new Ping(2));
      assertThat(second.job().state()).as("with the only slot taken").isEqualTo(JobState.AVAILABLE);
      release.countDown();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> f.job(second.job().id()).state() == JobState.COMPLETED);
    }
  }

  @Test
  void aKindTheClientDoesNotHandleIsLeftToANodeThatDoes() {
    try (Fixture f = new Fixture()) {
      Baton baton =
          f.start(
              quiet(f, 2).knownKinds(Other.class).build(),
              b -> b.handler(Ping.class, (ctx, a) -> {}));
      EnqueueResult r = baton.enqueue(new Other(1));
      assertThat(r.job().state()).isEqualTo(JobState.AVAILABLE);
      assertThat(r.job().attempt()).isZero();
    }
  }

  @Test
  void aJobEnqueuedInTheCallersTransactionWaitsForItsCommit() throws Exception {
    try (Fixture f = new Fixture()) {
      Baton baton = f.start(quiet(f, 2).build(), b -> b.handler(Ping.class, (ctx, a) -> {}));
      try (Connection c = f.dataSource().getConnection()) {
        c.setAutoCommit(false);
        EnqueueResult r = baton.enqueue(c, new Ping(1));
        assertThat(r.job().state()).isEqualTo(JobState.AVAILABLE);
        c.rollback();
        c.setAutoCommit(true);
      }
      assertThat(f.count("SELECT count(*) FROM %s.job")).isZero();
    }
  }

  @Test
  void aPausedQueueIsNotClaimedInTheInsert() {
    try (Fixture f = new Fixture()) {
      Baton baton = f.start(quiet(f, 2).build(), b -> b.handler(Ping.class, (ctx, a) -> {}));
      baton.pauseQueue("default");
      EnqueueResult r = baton.enqueue(new Ping(1));
      assertThat(r.job().state()).isEqualTo(JobState.AVAILABLE);
      baton.resumeQueue("default");
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> f.job(r.job().id()).state() == JobState.COMPLETED);
    }
  }

  @Test
  void turnedOffEveryJobIsInsertedAvailable() {
    try (Fixture f = new Fixture()) {
      Baton baton =
          f.start(
              quiet(f, 2).claimOnEnqueue(false).build(),
              b -> b.handler(Ping.class, (ctx, a) -> {}));
      EnqueueResult r = baton.enqueue(new Ping(1));
      assertThat(r.job().state()).isEqualTo(JobState.AVAILABLE);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> f.job(r.job().id()).state() == JobState.COMPLETED);
    }
  }

  @Test
  void stopWaitsForAnEnqueueClaimingInItsInsertAndHandsTheJobBack() throws Exception {
    try (Fixture f = new Fixture()) {
      Baton baton = f.start(quiet(f, 2).build(), b -> b.handler(Ping.class, (ctx, a) -> {}));
      EnqueueOptions keyed = EnqueueOptions.builder().idempotencyKey("k").build();
      ExecutorService pool = Executors.newFixedThreadPool(2);
      try (Connection blocker = f.dataSource().getConnection()) {
        // An uncommitted insert of the same key holds the claiming insert at its ON CONFLICT
        // check: the enqueue has reserved its slot and waits for the server.
        blocker.setAutoCommit(false);
        f.reader().enqueue(blocker, new Ping(0), keyed);
        Future<EnqueueResult> enqueue = pool.submit(() -> baton.enqueue(new Ping(1), keyed));
        await()
            .atMost(Duration.ofSeconds(10))
            .until(
                () ->
                    f.count("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
                        > 0);
        Future<?> stop = pool.submit(() -> baton.stop());
        await()
            .atMost(Duration.ofSeconds(10))
            .until(
                () ->
                    Thread.getAllStackTraces().keySet().stream()
                        .noneMatch(t -> t.getName().startsWith("baton-producer-default")));
        assertThat(stop.isDone())
            .as("stop returned while an enqueue held a reserved slot")
            .isFalse();
        blocker.rollback(); // the key is free: the waiting insert claims its job
        blocker.setAutoCommit(true);
        EnqueueResult r = enqueue.get(10, TimeUnit.SECONDS);
        stop.get(30, TimeUnit.SECONDS);
        assertThat(r.job().state()).as("claimed in the insert").isEqualTo(JobState.RUNNING);
        // The client had stopped claiming: the job went back to the queue, attempt given back.
        Job job = f.job(r.job().id());
        assertThat(job.state()).isEqualTo(JobState.AVAILABLE);
        assertThat(job.attempt()).isZero();
      } finally {
        pool.shutdownNow();
      }
    }
  }
}
