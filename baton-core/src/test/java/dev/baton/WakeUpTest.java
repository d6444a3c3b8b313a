package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testing.Fixture;
import java.sql.Connection;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Wake-ups: NOTIFY at commit wakes a worker on another client at once; an enqueue on the worker's
 * own client wakes it directly; with LISTEN off, the poll finds the job. Each worker polls only
 * once an hour here unless a test says otherwise, so a prompt pickup can only come from the
 * wake-up.
 */
class WakeUpTest {

  record Ping(int n) implements JobArgs {}

  private static final Duration HOUR = Duration.ofHours(1);

  @Test
  void notifyAtCommitWakesAWorkerOnAnotherClient() throws Exception {
    try (Fixture f = new Fixture()) {
      f.reader().enqueue(new Ping(0));
      f.start(
          f.config().queue("default", 2).pollInterval(HOUR).build(),
          b -> b.handler(Ping.class, (ctx, a) -> {}));
      // Let the worker's first claim (at start) and its LISTEN happen before the enqueue.
      awaitFirstClaimDone(f);
      await().atMost(Duration.ofSeconds(10)).until(() -> listeners(f) > 0);
      long id;
      try (Connection c = f.dataSource().getConnection()) {
        c.setAutoCommit(false);
        id = f.reader().enqueue(c, new Ping(1)).job().id();
        c.commit();
      }
      await().atMost(Duration.ofSeconds(5)).until(() -> f.job(id).state() == JobState.COMPLETED);
    }
  }

  @Test
  void enqueueOnTheWorkersOwnClientWakesItsProducerDirectly() {
    try (Fixture f = new Fixture()) {
      Baton baton =
          f.start(
              f.config().queue("default", 2).pollInterval(HOUR).pollOnly(true).build(),
              b -> b.handler(Ping.class, (ctx, a) -> {}));
      long id = baton.enqueue(new Ping(1)).job().id();
      await().atMost(Duration.ofSeconds(5)).until(() -> f.job(id).state() == JobState.COMPLETED);
    }
  }

  @Test
  void pollOnlyClientFindsJobsByPolling() {
    try (Fixture f = new Fixture()) {
      f.start(
          f.config()
              .queue("default", 2)
              .pollOnly(true)
              .pollInterval(Duration.ofMillis(100))
              .build(),
          b -> b.handler(Ping.class, (ctx, a) -> {}));
      long id = f.reader().enqueue(new Ping(1)).job().id();
      await().atMost(Duration.ofSeconds(5)).until(() -> f.job(id).state() == JobState.COMPLETED);
      assertThat(listeners(f)).isZero();
    }
  }

  @Test
  void withoutNotifyOrPollAJobFromAnotherClientWaits() {
    // The control: proves the first test's prompt pickup comes from NOTIFY, not from something
    // else.
    try (Fixture f = new Fixture()) {
      f.reader().enqueue(new Ping(0));
      f.start(
          f.config()
              .queue("default", 2)
              .pollOnly(true)
              .pollInterval(HOUR)
              .maintenanceEnabled(false)
              .build(),
          b -> b.handler(Ping.class, (ctx, a) -> {}));
      awaitFirstClaimDone(f);
      long id = f.reader().enqueue(new Ping(1)).job().id();
      await()
          .during(Duration.ofSeconds(2))
          .atMost(Duration.ofSeconds(10))
          .until(() -> f.job(id).state() == JobState.AVAILABLE);
    }
  }

  /**
   * A producer claims once at start. A job enqueued before start is taken by that claim; once it is
   * completed, the start-up claim is over and any later pickup needs a wake-up.
   */
  private static void awaitFirstClaimDone(Fixture f) {
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> f.count("SELECT count(*) FROM %s.job WHERE state = 'completed'") == 1);
  }

  private static long listeners(Fixture f) {
    return f.db()
        .queryLong(
            "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'LISTEN \""
                + f.schema()
                + "_%'");
  }
}
