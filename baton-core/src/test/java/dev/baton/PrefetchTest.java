package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.testing.Fixture;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A producer whose queue has a backlog claims jobs beyond its free slots; those jobs wait, held and
 * heartbeated, in its buffer, and a worker whose handler returns starts the next one at once.
 * {@link BatonConfig.Builder#prefetch(int)} fixes how many; without it the depth adapts ({@link
 * AdaptivePrefetchTest}).
 */
class PrefetchTest {

  record Work(int n) implements JobArgs {}

  @Test
  void stopHandsBackBufferedJobsAndRunningOnes() throws Exception {
    try (Fixture f = new Fixture()) {
      Baton baton = startWithBlockedSlots(f, 10, twoSlots(f).prefetch(2));
      // The first claim filled both slots, so the producer claims ahead: 2 more wait held.
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> f.count("SELECT count(*) FROM %s.job WHERE state = 'running'") == 4);
      assertThat(baton.counters().running()).isEqualTo(2);
      baton.stop();
      assertThat(f.count("SELECT count(*) FROM %s.job WHERE state = 'running'")).isZero();
      assertThat(f.count("SELECT count(*) FROM %s.job WHERE state = 'available' AND attempt = 0"))
          .isEqualTo(10);
      assertThat(baton.counters().handedBack()).isEqualTo(4);
    }
  }

  @Test
  void aBufferedJobThatWaitedHalfALeaseIsHandedBackNotStartedLate() {
    try (Fixture f = new Fixture()) {
      for (int i = 0; i < 4; i++) {
        f.reader().enqueue(new Work(i));
      }
      List<Long> startedAfterClaimMs = new CopyOnWriteArrayList<>();
      Baton baton =
          f.start(
              f.config().queue("default", 1).prefetch(1).lease(Duration.ofSeconds(1)).build(),
              b ->
                  b.handler(
                      Work.class,
                      (ctx, a) -> {
                        Job row = f.job(ctx.jobId());
                        startedAfterClaimMs.add(
                            Duration.between(row.attemptedAt(), java.time.Instant.now())
                                .toMillis());
                        Thread.sleep(700); // longer than half the lease
                      }));
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> f.count("SELECT count(*) FROM %s.job WHERE state = 'completed'") == 4);
      // Every job ran on its first attempt, and none started long after its claim.
      assertThat(f.count("SELECT count(*) FROM %s.job WHERE attempt <> 1")).isZero();
      assertThat(startedAfterClaimMs).allSatisfy(ms -> assertThat(ms).isLessThan(600));
      assertThat(baton.counters().handedBack()).isPositive();
    }
  }

  @Test
  void prefetchSetsHowManyJobsAreHeldBeyondTheSlots() throws Exception {
    // Each of the two claim streams may fill the buffer; the slots are shared exactly.
    assertHeldWithBlockedHandlers(5, 2 + 5, 2 + 2 * 5);
    assertHeldWithBlockedHandlers(0, 2, 2);
  }

  @Test
  void byDefaultAQueueWhoseHandlersHaveNotReturnedClaimsOnlyItsFreeSlots() throws Exception {
    // The adaptive depth knows no handler run time yet, so it claims nothing ahead.
    assertHeldWithBlockedHandlers(null, 2, 2);
  }

  @Test
  void prefetchOutOfRangeIsRejectedByName() {
    assertThatThrownBy(() -> BatonConfig.builder().prefetch(-1))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("prefetch")
        .hasMessageContaining("0..100000")
        .hasMessageContaining("-1");
  }

  /**
   * Starts a client working "default" with 2 slots and {@code prefetch} (null: the default), over a
   * backlog of 20 jobs whose handlers block, and checks that the jobs it holds (running in the
   * table) reach {@code least} and then stay at most {@code most} for 1.5 s.
   */
  private static void assertHeldWithBlockedHandlers(Integer prefetch, long least, long most)
      throws Exception {
    try (Fixture f = new Fixture()) {
      BatonConfig.Builder config = twoSlots(f).pollInterval(Duration.ofMillis(50));
      if (prefetch != null) {
        config.prefetch(prefetch);
      }
      Baton baton = startWithBlockedSlots(f, 20, config);
      String held = "SELECT count(*) FROM %s.job WHERE state = 'running'";
      await().atMost(Duration.ofSeconds(10)).until(() -> f.count(held) >= least);
      await()
          .during(Duration.ofMillis(1_500))
          .atMost(Duration.ofSeconds(3))
          .until(() -> f.count(held) <= most);
      assertThat(baton.counters().running()).isEqualTo(2);
      baton.stop();
    }
  }

  private static BatonConfig.Builder twoSlots(Fixture f) {
    return f.config()
        .queue("default", 2)
        .stopTimeout(Duration.ofMillis(100))
        .maintenanceEnabled(false);
  }

  /**
   * Enqueues {@code jobs} jobs, starts a client with {@code config} whose handlers block until
   * interrupted, and returns it once two handlers have started.
   */
  private static Baton startWithBlockedSlots(Fixture f, int jobs, BatonConfig.Builder config)
      throws InterruptedException {
    for (int i = 0; i < jobs; i++) {
      f.reader().enqueue(new Work(i));
    }
    CountDownLatch started = new CountDownLatch(2);
    Baton baton =
        f.start(
            config.build(),
            b ->
                b.handler(
                    Work.class,
                    (ctx, a) -> {
                      started.countDown();
                      Fixture.blockUntilInterrupted();
                    }));
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
    return baton;
  }
}
