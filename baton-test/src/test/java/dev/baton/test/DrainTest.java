package dev.baton.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.CancelJob;
import dev.baton.EnqueueOptions;
import dev.baton.JobArgs;
import dev.baton.JobHandler;
import dev.baton.SnoozeJob;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A drain runs a queue's due jobs on the test's thread, by the test's clock. */
@ExtendWith(BatonExtension.class)
class DrainTest {

  record Work(int n) implements JobArgs {}

  private static final Duration BACKOFF = Duration.ofMinutes(5);

  private static final AtomicInteger QUEUES = new AtomicInteger();

  private TestSchema schema;
  private String queue;
  private final List<String> threads = new ArrayList<>();

  @BeforeEach
  void setUp(TestSchema schema) {
    this.schema = schema;
    // The class shares one schema: each test works a queue of its own.
    this.queue = "q" + QUEUES.incrementAndGet();
  }

  private TestBaton client(JobHandler<Work> handler) {
    return client(handler, b -> {});
  }

  private TestBaton client(JobHandler<Work> handler, Consumer<Baton.Builder> more) {
    DataSource ds = schema.dataSource();
    Baton.Builder b =
        Baton.builder(ds)
            .config(schema.config().retryPolicy((attempt, e) -> BACKOFF).build())
            .handler(
                Work.class,
                (ctx, w) -> {
                  threads.add(Thread.currentThread().getName());
                  handler.work(ctx, w);
                });
    more.accept(b);
    Baton baton = b.build();
    return TestBaton.of(baton, ds);
  }

  private EnqueueOptions inQueue() {
    return EnqueueOptions.builder().queue(queue).build();
  }

  @Test
  void runsTheDueJobsOnTheCallersThreadInOrderAndCompletesThem() {
    TestBaton t = client((ctx, w) -> {});
    Baton baton = batonOf(t);
    long a = baton.enqueue(new Work(1), inQueue()).id();
    long b = baton.enqueue(new Work(2), inQueue()).id();

    List<JobOutcome> runs = t.drain(queue);

    assertThat(runs).extracting(JobOutcome::id).containsExactly(a, b);
    assertThat(runs).extracting(JobOutcome::outcome).containsOnly(Outcome.COMPLETED);
    assertThat(threads).containsOnly(Thread.currentThread().getName());
    assertThat(t.drain(queue)).isEmpty();
  }

  @Test
  void aFailedAttemptIsRetryableWithItsErrorAndRunsAgainOnlyWhenTheClockPassesItsBackoff() {
    TestBaton t =
        client(
            (ctx, w) -> {
              if (ctx.attempt() == 1) {
                throw new IllegalStateException("mail server down");
              }
            });
    long id = batonOf(t).enqueue(new Work(1), inQueue()).id();

    List<JobOutcome> first = t.drain(queue);
    assertThat(first)
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.id()).isEqualTo(id);
              assertThat(o.attempt()).isEqualTo(1);
              assertThat(o.outcome()).isEqualTo(Outcome.RETRYABLE);
              assertThat(o.error().error()).isEqualTo(IllegalStateException.class.getName());
              assertThat(o.error().message()).isEqualTo("mail server down");
              assertThat(o.nextRunAt()).isEqualTo(t.clock().instant().plus(BACKOFF));
            });

    assertThat(t.drain(queue)).isEmpty();
    t.clock().advance(BACKOFF.minusSeconds(1));
    assertThat(t.drain(queue)).isEmpty();
    t.clock().advance(Duration.ofSeconds(1));
    assertThat(t.drain(queue))
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.attempt()).isEqualTo(2);
              assertThat(o.outcome()).isEqualTo(Outcome.COMPLETED);
            });
  }

  @Test
  void aTransactionalCompletionThatRolledBackIsRetriedByTheClockToo() {
    TestBaton t =
        client(
            (ctx, w) -> {
              if (ctx.attempt() == 1) {
                try (Connection c = schema.dataSource().getConnection()) {
                  c.setAutoCommit(false);
                  ctx.completeIn(c);
                  c.rollback(); // the handler's own write failed after the completion
                }
              }
            });
    batonOf(t).enqueue(new Work(1), inQueue());

    JobOutcome first = t.drain(queue).get(0);
    assertThat(first.outcome()).isEqualTo(Outcome.RETRYABLE);
    assertThat(first.error().error()).isEqualTo("transaction_rolled_back");
    assertThat(first.nextRunAt()).isEqualTo(t.clock().instant().plus(BACKOFF));
    assertThat(t.drain(queue)).isEmpty();
    t.clock().advance(BACKOFF);
    assertThat(t.drain(queue)).extracting(JobOutcome::outcome).containsExactly(Outcome.COMPLETED);
  }

  @Test
  void aFailureOnTheLastAttemptDiscards() {
    TestBaton t =
        client(
            (ctx, w) -> {
              throw new IllegalArgumentException("bad address");
            });
    batonOf(t).enqueue(new Work(1), EnqueueOptions.builder().queue(queue).maxAttempts(1).build());

    assertThat(t.drain(queue))
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.outcome()).isEqualTo(Outcome.DISCARDED);
              assertThat(o.error().message()).isEqualTo("bad address");
              assertThat(o.nextRunAt()).isNull();
            });
  }

  @Test
  void aSnoozeGivesTheAttemptBackAndRunsAfterItsDelay() {
    TestBaton t =
        client(
            (ctx, w) -> {
              if (ctx.metadata().path("snoozes").asInt() == 0) {
                throw SnoozeJob.of(Duration.ofMinutes(10));
              }
            });
    batonOf(t).enqueue(new Work(1), inQueue());

    JobOutcome snoozed = t.drain(queue).get(0);
    assertThat(snoozed.outcome()).isEqualTo(Outcome.SNOOZED);
    assertThat(snoozed.error()).isNull();
    assertThat(snoozed.nextRunAt()).isEqualTo(t.clock().instant().plus(Duration.ofMinutes(10)));
    assertThat(t.drain(queue)).isEmpty();

    t.clock().advance(Duration.ofMinutes(10));
    assertThat(t.drain(queue))
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.outcome()).isEqualTo(Outcome.COMPLETED);
              assertThat(o.attempt()).isEqualTo(1);
            });
  }

  @Test
  void aCancelJobCancels() {
    TestBaton t =
        client(
            (ctx, w) -> {
              throw CancelJob.because("order withdrawn");
            });
    batonOf(t).enqueue(new Work(1), inQueue());

    assertThat(t.drain(queue))
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.outcome()).isEqualTo(Outcome.CANCELLED);
              assertThat(o.error().message()).isEqualTo("order withdrawn");
            });
  }

  @Test
  void aScheduledJobRunsOnceTheClockReachesItsRunAtTime() {
    TestBaton t = client((ctx, w) -> {});
    batonOf(t)
        .enqueue(
            new Work(1),
            EnqueueOptions.builder()
                .queue(queue)
                .runAt(t.clock().instant().plus(Duration.ofHours(1)))
                .build());

    assertThat(t.drain(queue)).isEmpty();
    t.clock().advance(Duration.ofMinutes(59));
    assertThat(t.drain(queue)).isEmpty();
    t.clock().advance(Duration.ofMinutes(1));
    assertThat(t.drain(queue)).extracting(JobOutcome::outcome).containsExactly(Outcome.COMPLETED);
  }

  @Test
  void jobsTheHandlersEnqueueIntoTheQueueRunInTheSameDrain() {
    Baton[] self = new Baton[1];
    TestBaton t =
        client(
            (ctx, w) -> {
              if (w.n() < 3) {
                self[0].enqueue(new Work(w.n() + 1), inQueue());
              }
            });
    self[0] = batonOf(t);
    self[0].enqueue(new Work(1), inQueue());

    assertThat(t.drain(queue)).hasSize(3);
  }

  @Test
  void aStartedClientCannotBeDrained() {
    TestBaton t = client((ctx, w) -> {});
    Baton baton = batonOf(t);
    baton.start();
    try {
      assertThatThrownBy(() -> t.drain(queue))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("this client is started");
    } finally {
      baton.stop();
    }
  }

  private static Baton batonOf(TestBaton t) {
    return t.baton();
  }
}
