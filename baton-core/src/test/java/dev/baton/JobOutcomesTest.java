package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testing.Fixture;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** What a handler's outcome does to its job: retry, discard, snooze, cancel, timeout, stop. */
class JobOutcomesTest {

  record Flaky(int failures) implements JobArgs {}

  record Sleepy(int n) implements JobArgs {}

  record Slow(int n) implements JobArgs {}

  private static final RetryPolicy FAST = (attempt, e) -> Duration.ofMillis(20);

  @Test
  void failedAttemptsAreRetriedWithOneErrorEntryEachThenComplete() {
    try (Fixture f = new Fixture()) {
      f.start(
          f.config().queue("default", 2).retryPolicy(FAST).build(),
          b ->
              b.handler(
                  Flaky.class,
                  (ctx, a) -> {
                    if (ctx.attempt() <= a.failures()) {
                      throw new IllegalStateException("boom " + ctx.attempt());
                    }
                  }));
      long id = f.reader().enqueue(new Flaky(2)).job().id();
      await().atMost(Duration.ofSeconds(15)).until(() -> f.job(id).state() == JobState.COMPLETED);
      Job job = f.job(id);
      assertThat(job.attempt()).isEqualTo(3);
      assertThat(job.errors()).hasSize(2);
      assertThat(job.errors().get(0).attempt()).isEqualTo(1);
      assertThat(job.errors().get(0).message()).isEqualTo("boom 1");
      assertThat(job.errors().get(0).error()).isEqualTo(IllegalStateException.class.getName());
      assertThat(job.errors().get(0).trace()).contains("JobOutcomesTest");
      assertThat(job.errors().get(1).attempt()).isEqualTo(2);
    }
  }

  @Test
  void lastFailedAttemptDiscardsTheJob() {
    try (Fixture f = new Fixture()) {
      f.start(
          f.config().queue("default", 2).retryPolicy(FAST).build(),
          b ->
              b.handler(
                  Flaky.class,
                  (ctx, a) -> {
                    throw new RuntimeException("always");
                  }));
      long id =
          f.reader()
              .enqueue(new Flaky(99), EnqueueOptions.builder().maxAttempts(3).build())
              .job()
              .id();
      await().atMost(Duration.ofSeconds(15)).until(() -> f.job(id).state() == JobState.DISCARDED);
      Job job = f.job(id);
      assertThat(job.attempt()).isEqualTo(3);
      assertThat(job.errors()).hasSize(3);
      assertThat(job.finalizedAt()).isNotNull();
    }
  }

  @Test
  void defaultRetryPolicyBacksOffExponentiallyWithJitter() {
    RetryPolicy p = RetryPolicy.exponential();
    for (int attempt = 1; attempt <= 5; attempt++) {
      long expected = 1000L << (attempt - 1);
      assertThat(p.nextDelay(attempt, null).toMillis())
          .isBetween(expected * 8 / 10, expected * 12 / 10);
    }
    assertThat(p.nextDelay(30, null)).isLessThanOrEqualTo(Duration.ofMinutes(72));
  }

  @Test
  void snoozeRunsTheJobAgainLaterWithoutUsingAnAttempt() {
    try (Fixture f = new Fixture()) {
      AtomicInteger runs = new AtomicInteger();
      f.start(
          f.config().queue("default", 2).build(),
          b ->
              b.handler(
                  Flaky.class,
                  (ctx, a) -> {
                    if (runs.incrementAndGet() < 3) {
                      throw SnoozeJob.of(Duration.ofMillis(100));
                    }
                  }));
      long id =
          f.reader()
              .enqueue(new Flaky(0), EnqueueOptions.builder().maxAttempts(1).build())
              .job()
              .id();
      await().atMost(Duration.ofSeconds(15)).until(() -> f.job(id).state() == JobState.COMPLETED);
      Job job = f.job(id);
      assertThat(runs).hasValue(3);
      assertThat(job.attempt()).isEqualTo(1);
      assertThat(job.errors()).isEmpty();
      assertThat(job.metadata().path("snoozes").asInt()).isEqualTo(2);
    }
  }

  @Test
  void cancelJobThrownByTheHandlerCancelsForGood() {
    try (Fixture f = new Fixture()) {
      f.start(
          f.config().queue("default", 2).build(),
          b ->
              b.handler(
                  Flaky.class,
                  (ctx, a) -> {
                    throw CancelJob.because("customer closed the account");
                  }));
      long id = f.reader().enqueue(new Flaky(0)).job().id();
      await().atMost(Duration.ofSeconds(10)).until(() -> f.job(id).state() == JobState.CANCELLED);
      assertThat(f.job(id).errors())
          .singleElement()
          .satisfies(e -> assertThat(e.message()).isEqualTo("customer closed the account"));
    }
  }

  @Test
  void timeoutInterruptsTheHandlerAndFailsTheAttempt() {
    try (Fixture f = new Fixture()) {
      f.start(
          f.config().queue("default", 2).retryPolicy((a, e) -> Duration.ofHours(1)).build(),
          b ->
              b.handler(
                  Sleepy.class,
                  Duration.ofMillis(300),
                  (ctx, a) -> Fixture.blockUntilInterrupted()));
      long id = f.reader().enqueue(new Sleepy(1)).job().id();
      await().atMost(Duration.ofSeconds(10)).until(() -> f.job(id).state() == JobState.RETRYABLE);
      assertThat(f.job(id).errors())
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.error()).isEqualTo("timeout");
                assertThat(e.message()).contains("timed out");
              });
    }
  }

  @Test
  void aShortTimeoutStartedAfterALongOneStillFiresOnTime() {
    // One sweep serves every deadline of the node: a job whose deadline comes before the one the
    // sweep is armed for (a later start, a shorter timeout) must bring the sweep forward.
    try (Fixture f = new Fixture()) {
      f.start(
          f.config().queue("default", 4).retryPolicy((a, e) -> Duration.ofHours(1)).build(),
          b ->
              b.handler(
                      Slow.class,
                      Duration.ofMinutes(10),
                      (ctx, a) -> Fixture.blockUntilInterrupted())
                  .handler(
                      Sleepy.class,
                      Duration.ofMillis(300),
                      (ctx, a) -> Fixture.blockUntilInterrupted()));
      long slow = f.reader().enqueue(new Slow(1)).job().id();
      await().atMost(Duration.ofSeconds(10)).until(() -> f.job(slow).state() == JobState.RUNNING);
      long quick = f.reader().enqueue(new Sleepy(2)).job().id();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> f.job(quick).state() == JobState.RETRYABLE);
      assertThat(f.job(quick).errors())
          .singleElement()
          .satisfies(e -> assertThat(e.error()).isEqualTo("timeout"));
      assertThat(f.job(slow).state()).isEqualTo(JobState.RUNNING);
    }
  }

  @Test
  void aLaterDeadlineStillFiresAfterTheSweepOfAnEarlierOne() {
    // The sweep that times out the first job must arm the next for the deadline still pending.
    try (Fixture f = new Fixture()) {
      f.start(
          f.config().queue("default", 4).retryPolicy((a, e) -> Duration.ofHours(1)).build(),
          b ->
              b.handler(
                      Sleepy.class,
                      Duration.ofMillis(300),
                      (ctx, a) -> Fixture.blockUntilInterrupted())
                  .handler(
                      Slow.class,
                      Duration.ofMillis(900),
                      (ctx, a) -> Fixture.blockUntilInterrupted()));
      long quick = f.reader().enqueue(new Sleepy(1)).job().id();
      long later = f.reader().enqueue(new Slow(2)).job().id();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  f.job(quick).state() == JobState.RETRYABLE
                      && f.job(later).state() == JobState.RETRYABLE);
      assertThat(f.job(later).errors())
          .singleElement()
          .satisfies(e -> assertThat(e.error()).isEqualTo("timeout"));
    }
  }

  @Test
  void cancellingARunningJobInterruptsItsHandler() throws Exception {
    try (Fixture f = new Fixture()) {
      CountDownLatch started = new CountDownLatch(1);
      Baton baton =
          f.start(
              f.config().queue("default", 2).build(),
              b ->
                  b.handler(
                      Sleepy.class,
                      (ctx, a) -> {
                        started.countDown();
                        Fixture.blockUntilInterrupted();
                      }));
      long id = baton.enqueue(new Sleepy(1)).job().id();
      assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(baton.cancel(id)).contains(JobState.RUNNING);
      await().atMost(Duration.ofSeconds(10)).until(() -> f.job(id).state() == JobState.CANCELLED);
      assertThat(baton.counters().cancelled()).isEqualTo(1);
      // A job that is final already cannot be cancelled again.
      assertThat(baton.cancel(id)).isEmpty();
    }
  }

  @Test
  void cancellingAWaitingJobCancelsItAtOnce() {
    try (Fixture f = new Fixture()) {
      long id =
          f.reader()
              .enqueue(
                  new Sleepy(1),
                  EnqueueOptions.builder().runAt(Instant.now().plusSeconds(3600)).build())
              .job()
              .id();
      assertThat(f.job(id).state()).isEqualTo(JobState.SCHEDULED);
      assertThat(f.reader().cancel(id)).contains(JobState.CANCELLED);
      assertThat(f.job(id).finalizedAt()).isNotNull();
      assertThat(f.reader().cancel(424242)).isEmpty();
    }
  }

  @Test
  void scheduledJobRunsOnlyOnceDue() {
    try (Fixture f = new Fixture()) {
      AtomicInteger runs = new AtomicInteger();
      f.start(
          f.config().queue("default", 2).build(),
          b -> b.handler(Sleepy.class, (ctx, a) -> runs.incrementAndGet()));
      Instant runAt = Instant.now().plusMillis(1500);
      long id =
          f.reader()
              .enqueue(new Sleepy(1), EnqueueOptions.builder().runAt(runAt).build())
              .job()
              .id();
      await().atMost(Duration.ofSeconds(10)).until(() -> f.job(id).state() == JobState.COMPLETED);
      assertThat(f.job(id).attemptedAt()).isAfterOrEqualTo(runAt.minusMillis(50));
    }
  }

  @Test
  void gracefulStopHandsBackJobsWhoseHandlersGiveUpWithoutUsingTheAttempt() throws Exception {
    try (Fixture f = new Fixture()) {
      CountDownLatch started = new CountDownLatch(2);
      Baton baton =
          f.start(
              f.config()
                  .queue("default", 2)
                  .stopTimeout(Duration.ofMillis(200))
                  .maintenanceEnabled(false)
                  .build(),
              b ->
                  b.handler(
                      Sleepy.class,
                      (ctx, a) -> {
                        started.countDown();
                        Fixture.blockUntilInterrupted();
                      }));
      long one = baton.enqueue(new Sleepy(1)).job().id();
      long two = baton.enqueue(new Sleepy(2)).job().id();
      assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
      baton.stop();
      for (long id : new long[] {one, two}) {
        Job job = f.job(id);
        assertThat(job.state()).isEqualTo(JobState.AVAILABLE);
        assertThat(job.attempt()).isZero();
        assertThat(job.errors()).isEmpty();
      }
      assertThat(baton.counters().handedBack()).isEqualTo(2);
      baton.stop(); // twice is fine
    }
  }

  @Test
  void aHandlerThatCancelsItsJobWhenStoppedCancelsItRatherThanHandingItBack() throws Exception {
    try (Fixture f = new Fixture()) {
      CountDownLatch started = new CountDownLatch(1);
      Baton baton =
          f.start(
              f.config()
                  .queue("default", 1)
                  .stopTimeout(Duration.ofMillis(100))
                  .maintenanceEnabled(false)
                  .build(),
              b ->
                  b.handler(
                      Sleepy.class,
                      (ctx, a) -> {
                        started.countDown();
                        try {
                          Fixture.blockUntilInterrupted();
                        } catch (InterruptedException e) {
                          throw CancelJob.because("not worth resuming");
                        }
                      }));
      long id = baton.enqueue(new Sleepy(1)).job().id();
      assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
      baton.stop();
      assertThat(f.job(id).state()).isEqualTo(JobState.CANCELLED);
      assertThat(baton.counters().cancelled()).isEqualTo(1);
      assertThat(baton.counters().handedBack()).isZero();
    }
  }

  @Test
  void stopBeforeStartIsFineAndAStoppedClientCannotStartAgain() {
    try (Fixture f = new Fixture()) {
      Baton baton = Baton.builder(f.dataSource()).config(f.config().build()).build();
      baton.stop();
      baton.stop();
      org.assertj.core.api.Assertions.assertThatThrownBy(baton::start)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("build a new one");
    }
  }
}
