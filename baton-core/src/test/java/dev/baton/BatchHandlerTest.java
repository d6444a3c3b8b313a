package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.testing.Fixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A batch handler works many jobs in one call, and every job still gets an outcome of its own:
 * completed when the call returns, the outcome {@link BatchJob#fail} gave it, or that of the
 * exception the call threw; a cancel of one job interrupts nothing, a timeout the whole call.
 */
class BatchHandlerTest {

  record Tiny(int n) implements JobArgs {}

  private static final Duration WAIT = Duration.ofSeconds(20);

  @Test
  void jobsReadyTogetherShareCallsOfAtMostTheMaximumAndEachRunsOnce() {
    try (Fixture f = new Fixture()) {
      int count = 200;
      List<Long> ids = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        ids.add(f.reader().enqueue(new Tiny(i)).job().id());
      }
      List<Integer> sizes = new CopyOnWriteArrayList<>();
      Map<Long, AtomicInteger> runs = new ConcurrentHashMap<>();
      f.start(
          f.config().queue("default", 64).build(),
          b ->
              b.batchHandler(
                  Tiny.class,
                  20,
                  batch -> {
                    sizes.add(batch.size());
                    for (BatchJob<Tiny> j : batch) {
                      runs.computeIfAbsent(j.context().jobId(), k -> new AtomicInteger())
                          .incrementAndGet();
                    }
                  }));
      await()
          .atMost(WAIT)
          .until(() -> f.count("SELECT count(*) FROM %s.job WHERE state = 'completed'") == count);
      assertThat(runs.keySet()).containsExactlyInAnyOrderElementsOf(ids);
      assertThat(runs.values()).allSatisfy(n -> assertThat(n).hasValue(1));
      assertThat(sizes).allSatisfy(n -> assertThat(n).isBetween(1, 20));
      assertThat(sizes.stream().mapToInt(Integer::intValue).sum()).isEqualTo(count);
      assertThat(sizes.stream().mapToInt(Integer::intValue).max().orElse(0)).isGreaterThan(1);
    }
  }

  @Test
  void failGivesOneJobItsOwnOutcomeAndTheRestComplete() {
    try (Fixture f = new Fixture()) {
      Baton w =
          f.start(
              f.config().queue("default", 8).build(),
              b ->
                  b.batchHandler(
                      Tiny.class,
                      batch -> {
                        for (BatchJob<Tiny> j : batch) {
                          switch (j.args().n()) {
                            case 1 -> j.fail(new IllegalStateException("mailbox full"));
                            case 2 -> j.fail(CancelJob.because("unsubscribed"));
                            case 3 -> j.fail(SnoozeJob.of(Duration.ofHours(1)));
                            default -> {}
                          }
                        }
                      }));
      EnqueueOptions once = EnqueueOptions.builder().maxAttempts(1).build();
      long ok = w.enqueue(new Tiny(0), once).job().id();
      long failed = w.enqueue(new Tiny(1), once).job().id();
      long cancelled = w.enqueue(new Tiny(2), once).job().id();
      long snoozed = w.enqueue(new Tiny(3), once).job().id();
      await().atMost(WAIT).until(() -> f.job(ok).state() == JobState.COMPLETED);
      await().atMost(WAIT).until(() -> f.job(failed).state() == JobState.DISCARDED);
      await().atMost(WAIT).until(() -> f.job(cancelled).state() == JobState.CANCELLED);
      await().atMost(WAIT).until(() -> f.job(snoozed).state() == JobState.SCHEDULED);
      assertThat(f.job(failed).errors())
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.error()).isEqualTo(IllegalStateException.class.getName());
                assertThat(e.message()).isEqualTo("mailbox full");
              });
      assertThat(f.job(cancelled).errors())
          .singleElement()
          .satisfies(e -> assertThat(e.message()).isEqualTo("unsubscribed"));
      assertThat(f.job(ok).errors()).isEmpty();
      assertThat(f.job(snoozed).attempt()).isZero(); // a snooze gives its attempt back
    }
  }

  @Test
  void aCallThatThrowsFailsEveryJobNotGivenAnOutcomeAlready() {
    try (Fixture f = new Fixture()) {
      EnqueueOptions once = EnqueueOptions.builder().maxAttempts(1).build();
      List<Long> ids = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        ids.add(f.reader().enqueue(new Tiny(i), once).job().id());
      }
      f.start(
          f.config().queue("default", 8).build(),
          b ->
              b.batchHandler(
                  Tiny.class,
                  batch -> {
                    for (BatchJob<Tiny> j : batch) {
                      if (j.args().n() == 0) {
                        j.fail(CancelJob.because("first one cancelled"));
                      }
                    }
                    throw new IllegalStateException("bulk endpoint down");
                  }));
      await()
          .atMost(WAIT)
          .until(() -> f.count("SELECT count(*) FROM %s.job WHERE finalized_at IS NOT NULL") == 6);
      assertThat(f.job(ids.get(0)).state()).isEqualTo(JobState.CANCELLED);
      for (long id : ids.subList(1, 6)) {
        Job job = f.job(id);
        assertThat(job.state()).isEqualTo(JobState.DISCARDED);
        assertThat(job.errors())
            .singleElement()
            .satisfies(e -> assertThat(e.message()).isEqualTo("bulk endpoint down"));
      }
    }
  }

  @Test
  void aCancelOfOneJobInterruptsNothingAndTheHandlerSeesIt() throws Exception {
    try (Fixture f = new Fixture()) {
      CountDownLatch firstCall = new CountDownLatch(1);
      CountDownLatch releaseFirst = new CountDownLatch(1);
      CountDownLatch secondCall = new CountDownLatch(1);
      AtomicReference<List<Long>> second = new AtomicReference<>();
      AtomicBoolean interrupted = new AtomicBoolean();
      AtomicBoolean sawCancel = new AtomicBoolean();
      Baton w =
          f.start(
              f.config().queue("default", 8).build(),
              b ->
                  b.batchHandler(
                      Tiny.class,
                      3,
                      batch -> {
                        if (batch.get(0).args().n() == 0) { // the first call holds the others back
                          firstCall.countDown();
                          releaseFirst.await();
                          return;
                        }
                        second.set(batch.stream().map(j -> j.context().jobId()).toList());
                        secondCall.countDown();
                        BatchJob<Tiny> a = batch.get(0);
                        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                        while (!a.context().isCancelled() && System.nanoTime() < until) {
                          if (Thread.currentThread().isInterrupted()) {
                            interrupted.set(true);
                            break;
                          }
                          Thread.onSpinWait();
                        }
                        sawCancel.set(a.context().isCancelled());
                        // A stop interrupts under the job's lock, before isCancelled() can read
                        // true: an interrupt from the cancel would be here by now.
                        if (Thread.currentThread().isInterrupted()) {
                          interrupted.set(true);
                        }
                        a.fail(CancelJob.because("seen by the handler"));
                      }));
      long blocker = w.enqueue(new Tiny(0)).job().id();
      assertThat(firstCall.await(10, TimeUnit.SECONDS)).isTrue();
      long a = w.enqueue(new Tiny(1)).job().id();
      long b = w.enqueue(new Tiny(2)).job().id();
      await()
          .atMost(WAIT)
          .until(
              () -> f.job(a).state() == JobState.RUNNING && f.job(b).state() == JobState.RUNNING);
      releaseFirst.countDown();
      assertThat(secondCall.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(second.get()).containsExactly(a, b);
      w.cancel(a);
      await().atMost(WAIT).until(() -> f.job(a).state() == JobState.CANCELLED);
      await().atMost(WAIT).until(() -> f.job(b).state() == JobState.COMPLETED);
      assertThat(f.job(blocker).state()).isEqualTo(JobState.COMPLETED);
      assertThat(sawCancel).isTrue();
      assertThat(interrupted).isFalse();
    }
  }

  @Test
  void theKindsTimeoutInterruptsTheWholeCall() {
    try (Fixture f = new Fixture()) {
      EnqueueOptions once = EnqueueOptions.builder().maxAttempts(1).build();
      List<Long> ids = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        ids.add(f.reader().enqueue(new Tiny(i), once).job().id());
      }
      f.start(
          f.config().queue("default", 8).build(), // the client's timeout: 5 minutes
          b ->
              b.batchHandler(
                  Tiny.class,
                  10,
                  Duration.ofMillis(300), // the kind's own
                  batch -> Fixture.blockUntilInterrupted()));
      for (long id : ids) {
        await().atMost(WAIT).until(() -> f.job(id).state() == JobState.DISCARDED);
        assertThat(f.job(id).errors())
            .singleElement()
            .satisfies(e -> assertThat(e.error()).isEqualTo("timeout"));
      }
    }
  }

  @Test
  void aCallPastItsTimeoutThatIgnoresTheInterruptDoesNotHoldUpTheJobsAfterIt() throws Exception {
    try (Fixture f = new Fixture()) {
      CountDownLatch stuck = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      Baton w =
          f.start(
              f.config().queue("default", 8).jobTimeout(Duration.ofMillis(300)).build(),
              b ->
                  b.batchHandler(
                      Tiny.class,
                      batch -> {
                        if (batch.get(0).args().n() == 0) {
                          stuck.countDown();
                          while (release.getCount() > 0) { // ignores interrupts, as a hung call
                            try {
                              release.await(10, TimeUnit.MILLISECONDS);
                            } catch (InterruptedException ignored) {
                              // a hung call does not notice
                            }
                          }
                        }
                      }));
      try {
        w.enqueue(new Tiny(0));
        assertThat(stuck.await(10, TimeUnit.SECONDS)).isTrue();
        long after = w.enqueue(new Tiny(1)).job().id();
        await().atMost(WAIT).until(() -> f.job(after).state() == JobState.COMPLETED);
        assertThat(release.getCount()).isOne(); // the first call was still stuck
      } finally {
        release.countDown();
      }
    }
  }

  @Test
  void stopCalledFromABatchHandlerDoesNotWaitForItsOwnCall() throws Exception {
    try (Fixture f = new Fixture()) {
      CountDownLatch stopped = new CountDownLatch(1);
      AtomicReference<Baton> client = new AtomicReference<>();
      client.set(
          f.start(
              f.config().queue("default", 8).stopTimeout(Duration.ofSeconds(60)).build(),
              b ->
                  b.batchHandler(
                      Tiny.class,
                      batch -> {
                        client.get().stop(); // waits for every handler but this call's jobs
                        stopped.countDown();
                      })));
      client.get().enqueue(new Tiny(0));
      assertThat(stopped.await(20, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void aDrainRunsABatchHandlersJobsOneAtATimeWithTheirOwnOutcomes() {
    try (Fixture f = new Fixture()) {
      List<Integer> sizes = new CopyOnWriteArrayList<>();
      Baton baton =
          Baton.builder(f.dataSource())
              .config(f.config().queue("default", 4).build())
              .batchHandler(
                  Tiny.class,
                  batch -> {
                    sizes.add(batch.size());
                    if (batch.get(0).args().n() == 1) {
                      batch.get(0).fail(new IllegalStateException("odd one"));
                    }
                  })
              .build();
      baton.enqueue(new Tiny(0));
      baton.enqueue(new Tiny(1));

      List<JobRun> runs = Drain.run(baton, "default", java.time.Instant.now().plusSeconds(1));

      assertThat(runs)
          .extracting(JobRun::state)
          .containsExactly(JobState.COMPLETED, JobState.RETRYABLE);
      assertThat(sizes).containsExactly(1, 1);
    }
  }

  @Test
  void aMaximumOutsideItsRangeIsRefusedNamingIt() {
    Baton.Builder b = Baton.builder(new org.postgresql.ds.PGSimpleDataSource());
    assertThatThrownBy(() -> b.batchHandler(Tiny.class, 0, batch -> {}))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("maxBatch")
        .hasMessageContaining("1 to 10000");
  }
}
