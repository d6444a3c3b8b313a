package dev.baton;

import static org.awaitility.Awaitility.await;

import dev.baton.testing.Fixture;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The node's one fallback poll covers all its queues: a job on any of many queues that no NOTIFY
 * announced (notifications off, or lost) is picked up within a few poll intervals, and a paused
 * queue's job is not claimed until the queue is resumed. Producers do not poll on their own, so
 * here the shared poll is the only way such a job can be found.
 */
class SharedPollTest {

  record Ping(int n) implements JobArgs {}

  private static final int QUEUES = 50;
  private static final Duration POLL = Duration.ofMillis(200);

  /** Generous for a loaded machine: many poll intervals. */
  private static final Duration BOUND = Duration.ofSeconds(15);

  @Test
  void jobOnAnyOfManyQueuesIsPickedUpByThePollWithNotificationsOff() {
    try (Fixture f = new Fixture()) {
      f.start(manyQueues(f).pollOnly(true).build(), b -> b.handler(Ping.class, (ctx, a) -> {}));
      for (int q : List.of(0, 17, QUEUES - 1)) {
        long id = enqueueOn(f, q, null);
        await().atMost(BOUND).until(() -> f.job(id).state() == JobState.COMPLETED);
      }
    }
  }

  @Test
  void jobMadeAvailableWithoutANotifyIsPickedUpByThePollWhileListening() {
    try (Fixture f = new Fixture()) {
      f.start(manyQueues(f).build(), b -> b.handler(Ping.class, (ctx, a) -> {}));
      // Scheduled far ahead, then made available by hand: no NOTIFY is ever sent for it (the
      // scheduler, which would send one, does not run here).
      long id = enqueueOn(f, 33, Instant.now().plus(Duration.ofHours(1)));
      f.execute("UPDATE %s.job SET state = 'available', scheduled_at = now() WHERE id = " + id);
      await().atMost(BOUND).until(() -> f.job(id).state() == JobState.COMPLETED);
    }
  }

  @Test
  void pausedQueueIsNotClaimedThroughThePoll() {
    try (Fixture f = new Fixture()) {
      f.start(manyQueues(f).pollOnly(true).build(), b -> b.handler(Ping.class, (ctx, a) -> {}));
      f.reader().pauseQueue("q5");
      long paused = enqueueOn(f, 5, null);
      long other = enqueueOn(f, 6, null);
      await().atMost(BOUND).until(() -> f.job(other).state() == JobState.COMPLETED);
      // Ten poll intervals after the other queue's job was found.
      await()
          .during(POLL.multipliedBy(10))
          .atMost(BOUND)
          .until(() -> f.job(paused).state() == JobState.AVAILABLE);
      // Resumed by another client: its resume reaches this node (LISTEN off) only by the poll.
      f.reader().resumeQueue("q5");
      await().atMost(BOUND).until(() -> f.job(paused).state() == JobState.COMPLETED);
    }
  }

  /** Queues q0..q49, one slot each, polled every 200 ms; no maintenance (no scheduler). */
  private static BatonConfig.Builder manyQueues(Fixture f) {
    BatonConfig.Builder b = f.config().pollInterval(POLL).maintenanceEnabled(false);
    for (int q = 0; q < QUEUES; q++) {
      b.queue("q" + q, 1);
    }
    return b;
  }

  /** Enqueues on queue {@code q} from another client, so no producer is woken locally. */
  private static long enqueueOn(Fixture f, int q, Instant runAt) {
    return f.reader()
        .enqueue(new Ping(q), EnqueueOptions.builder().queue("q" + q).runAt(runAt).build())
        .job()
        .id();
  }
}
