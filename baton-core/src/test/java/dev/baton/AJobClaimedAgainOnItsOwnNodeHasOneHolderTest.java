package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.internal.completer.Completer;
import dev.baton.internal.db.ClaimedJob;
import dev.baton.internal.db.Finish;
import dev.baton.internal.db.HolderStore;
import dev.baton.internal.db.SchemaName;
import dev.baton.internal.held.HeldJobs;
import dev.baton.internal.held.NodeCounters;
import dev.baton.internal.held.RunningJob;
import dev.baton.testing.Fixture;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * When a node claims again a job it still runs under an older fence (its lease ran out during a
 * pause, another node rescued it, and this node's producer won the next claim), the new claim is
 * the job's one holder: the older handler is interrupted, and when both holders' finishes meet in
 * one completer batch only the current holder's is applied and the stale one is counted as fenced.
 */
class AJobClaimedAgainOnItsOwnNodeHasOneHolderTest {

  record Work(int n) implements JobArgs {}

  private static final Duration LEASE = Duration.ofMinutes(5);

  @Test
  void theOlderHolderOnTheSameNodeIsInterruptedOnceItsJobWasClaimedAgain() throws Exception {
    try (Fixture f = new Fixture()) {
      CountDownLatch firstStarted = new CountDownLatch(1);
      CountDownLatch firstInterrupted = new CountDownLatch(1);
      CountDownLatch secondStarted = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      Baton baton =
          f.start(
              f.config()
                  .queue("default", 2)
                  .lease(Duration.ofHours(1))
                  .heartbeatInterval(Duration.ofSeconds(2))
                  .stopTimeout(Duration.ofMillis(200))
                  .maintenanceEnabled(false)
                  .build(),
              b ->
                  b.handler(
                      Work.class,
                      (ctx, a) -> {
                        if (ctx.attempt() == 1) {
                          firstStarted.countDown();
                          try {
                            release.await();
                          } catch (InterruptedException e) {
                            firstInterrupted.countDown();
                            throw e;
                          }
                        } else {
                          secondStarted.countDown();
                          release.await();
                        }
                      }));
      try {
        long id = baton.enqueue(new Work(1)).job().id();
        assertThat(firstStarted.await(10, TimeUnit.SECONDS)).isTrue();
        // Another node's rescuer and scheduler: the lease ran out, the job is available again.
        f.execute(
            "WITH u AS (UPDATE %s.job SET state = 'available', lease_expires_at = NULL,"
                + " deadline_at = NULL WHERE id = "
                + id
                + " RETURNING queue)"
                + " SELECT pg_notify('%s_insert', queue) FROM u");
        assertThat(secondStarted.await(10, TimeUnit.SECONDS))
            .as("this node claimed the job again")
            .isTrue();
        assertThat(firstInterrupted.await(8, TimeUnit.SECONDS))
            .as("the first holder (an older fence, on the same node) is interrupted within 4 beats")
            .isTrue();
      } finally {
        release.countDown();
      }
    }
  }

  @Test
  void aBatchWithTwoFinishesOfOneJobAppliesOnlyTheCurrentHoldersFinish() {
    try (Fixture f = new Fixture()) {
      HolderStore store = new HolderStore(SchemaName.of(f.schema()));
      long id = f.reader().enqueue(new Work(1)).job().id();
      ClaimedJob stale = claimOne(f, store);
      f.execute("UPDATE %s.job SET state = 'available', lease_expires_at = NULL WHERE id = " + id);
      ClaimedJob current = claimOne(f, store);
      assertThat(current.fence()).isGreaterThan(stale.fence());

      Finish staleFailure =
          new Finish(
              id, stale.fence(), "retryable", 0L, "{\"attempt\":1,\"error\":\"stale\"}", 0, null);
      Finish currentCancel =
          new Finish(
              id,
              current.fence(),
              "cancelled",
              null,
              "{\"attempt\":2,\"error\":\"cancelled\"}",
              0,
              null);
      store.finishIfHeld(f.dataSource(), List.of(staleFailure, currentCancel));

      assertThat(f.job(id).state()).as("the current holder's finish").isEqualTo(JobState.CANCELLED);
    }
  }

  @Test
  void aStaleCompletionInTheSameBatchAsTheCurrentOneIsCountedAsFenced() throws Exception {
    try (Fixture f = new Fixture()) {
      HolderStore store = new HolderStore(SchemaName.of(f.schema()));
      long id = f.reader().enqueue(new Work(1)).job().id();
      ClaimedJob stale = claimOne(f, store);
      f.execute("UPDATE %s.job SET state = 'available', lease_expires_at = NULL WHERE id = " + id);
      ClaimedJob current = claimOne(f, store);

      HeldJobs held = new HeldJobs();
      NodeCounters counters = new NodeCounters();
      Completer completer =
          new Completer(
              f.dataSource(),
              store,
              held,
              counters,
              new Completer.Settings(100, 64, Duration.ZERO));
      RunningJob staleJob = new RunningJob(stale, () -> {}, System.nanoTime(), LEASE);
      RunningJob currentJob = new RunningJob(current, () -> {}, System.nanoTime(), LEASE);
      held.add(staleJob);
      held.add(currentJob);
      try {
        completer.submit(staleJob, Finish.completed(id, stale.fence()), counters.completed);
        completer.submit(currentJob, Finish.completed(id, current.fence()), counters.completed);
        completer.start();
        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> counters.completed.sum() + counters.fenced.sum() == 2);
        assertThat(f.job(id).state()).isEqualTo(JobState.COMPLETED);
        assertThat(counters.fenced.sum()).as("fenced (the stale completion)").isEqualTo(1);
        assertThat(counters.completed.sum()).as("completed").isEqualTo(1);
      } finally {
        try {
          completer.stop(Duration.ofSeconds(5));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  private static ClaimedJob claimOne(Fixture f, HolderStore store) {
    List<ClaimedJob> claimed =
        store.claim(
            f.dataSource(),
            new HolderStore.ClaimParams(
                "default", 1, "node", LEASE, new String[0], new Long[0], Duration.ofMinutes(1)));
    assertThat(claimed).hasSize(1);
    return claimed.get(0);
  }
}
