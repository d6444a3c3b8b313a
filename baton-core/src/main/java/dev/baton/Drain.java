package dev.baton;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * Runs a queue's jobs inline, on the calling thread, with a client's handlers: the one way in for
 * the test kit ({@code baton-test}'s {@code TestBaton.drain}, which drives it with a settable
 * clock) and for tests that drive a client by hand. Not for production: a drain claims jobs as a
 * producer does but extends no lease and rescues nothing.
 *
 * <p>Why a class of its own: draining needs the client's handlers, interceptors and executor, which
 * are no public API, while the production client {@link Baton} should not carry a test-only method.
 * Modules outside core may use only core's public API, so the test kit needs a public entry point;
 * this class is it, kept to one static method (with a default), so that the client's own API holds
 * nothing for tests.
 *
 * <pre>{@code
 * Baton baton = Baton.builder(dataSource).config(config).handler(SendEmail.class, handler).build();
 * baton.enqueue(new SendEmail("a@example.com"));
 * List<JobRun> runs = Drain.run(baton, "default", Instant.now());
 * }</pre>
 */
public final class Drain {

  /** Most jobs one {@link #run(Baton, String, Instant)} runs before it gives up: 1,000. */
  public static final int DEFAULT_MAX_RUNS = 1_000;

  private Drain() {}

  /**
   * Drains {@code queue} of {@code baton} at {@code now}, running at most {@value
   * #DEFAULT_MAX_RUNS} jobs; see {@link #run(Baton, String, Instant, int)}.
   */
  public static List<JobRun> run(Baton baton, String queue, Instant now) {
    return run(baton, queue, now, DEFAULT_MAX_RUNS);
  }

  /**
   * Works the due jobs of {@code queue} on the calling thread, one at a time, with {@code baton}'s
   * handlers, and returns what became of each, in the order they ran.
   *
   * <p>Time is {@code now}, not the database's clock: jobs of the queue that are {@code scheduled}
   * or {@code retryable} for a time at or before {@code now} are made available, and a retry or
   * snooze delay counts from {@code now} (to the millisecond). A later call with a later {@code
   * now} runs what became due meanwhile. Every available job runs, whatever its run-at time. Jobs
   * are claimed as a producer claims them (attempt, fence, lease and deadline; priority, run-at
   * time, id), each job's outcome is written before the next is claimed, and jobs that the handlers
   * enqueue in the queue, or snooze to a time not after {@code now}, run in the same call. The
   * handler's timeout interrupts it in real time, as in a started client; leases are not extended
   * and nothing is rescued. The queue need not be one of the config's queues; a paused queue runs
   * nothing.
   *
   * @throws IllegalStateException if {@code baton} is started (its producers work the same jobs)
   * @throws InvalidConfigException if {@code queue} is not a valid queue name
   * @throws IllegalArgumentException if {@code maxRuns} is under 1
   * @throws BatonException if more than {@code maxRuns} jobs would run (a handler that enqueues or
   *     snoozes jobs without end), or on a database error
   */
  public static List<JobRun> run(Baton baton, String queue, Instant now, int maxRuns) {
    return Objects.requireNonNull(baton, "baton").drain(queue, now, maxRuns);
  }
}
