package dev.baton.test;

import dev.baton.BatchJob;
import dev.baton.BatchJobHandler;
import dev.baton.CancelJob;
import dev.baton.JobArgs;
import dev.baton.JobContext;
import dev.baton.JobHandler;
import dev.baton.SnoozeJob;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * Runs one handler on the calling thread with a {@link TestJobContext}, without a database or a
 * client, and reports what its outcome would do to the job, by the same rules as a worker: a return
 * completes; {@link SnoozeJob} snoozes; {@link CancelJob}, or any throw once the context is
 * cancelled, cancels; any other throw is retryable before the last attempt and discarded on it.
 *
 * <pre>{@code
 * HandlerResult r = HandlerHarness.run(new SendEmailHandler(mailer), new SendEmail(42, "a@b"),
 *     TestJobContext.builder(SendEmail.class).attempt(3, 3).build());
 * assertThat(r.outcome()).isEqualTo(Outcome.DISCARDED);
 * }</pre>
 *
 * <p>A {@link BatchJobHandler} runs the same way with {@link #runBatch}: one call for the whole
 * list, and a result per job, from the outcome {@link BatchJob#fail} gave it, else from what the
 * call threw, else completed. A {@link TestJobContext#cancel()} of one job of a batch interrupts
 * nothing, as in a worker.
 *
 * <p>Timeouts are not enforced: the deadline is what the context reports. What the handler throws
 * is never rethrown; it is in {@link HandlerResult#error()}.
 */
public final class HandlerHarness {
  private HandlerHarness() {}

  /** Runs {@code handler} on {@code args} with a default context of the args' kind. */
  public static <A extends JobArgs> HandlerResult run(JobHandler<? super A> handler, A args) {
    Objects.requireNonNull(args, "args");
    return run(handler, args, TestJobContext.builder(args.getClass()).build());
  }

  /** Runs {@code handler} on {@code args} with {@code context}. */
  public static <A extends JobArgs> HandlerResult run(
      JobHandler<? super A> handler, A args, TestJobContext context) {
    Objects.requireNonNull(handler, "handler");
    Objects.requireNonNull(args, "args");
    Objects.requireNonNull(context, "context");
    context.attach(Thread.currentThread());
    try {
      invoke(handler, args, context);
      return new HandlerResult(Outcome.COMPLETED, null, null);
    } catch (SnoozeJob s) {
      return new HandlerResult(Outcome.SNOOZED, s, s.delay());
    } catch (Throwable t) {
      if (t instanceof CancelJob || context.isCancelled()) {
        return new HandlerResult(Outcome.CANCELLED, t, null);
      }
      Outcome o =
          context.attempt() >= context.maxAttempts() ? Outcome.DISCARDED : Outcome.RETRYABLE;
      return new HandlerResult(o, t, null);
    } finally {
      context.detach();
    }
  }

  /**
   * Runs {@code handler} on one batch of {@code args}, each job with a default context of its args'
   * kind (ids 1, 2, ...); returns a result per job, in order.
   */
  public static <A extends JobArgs> List<HandlerResult> runBatch(
      BatchJobHandler<A> handler, List<A> args) {
    Objects.requireNonNull(args, "args");
    List<TestJobContext> contexts = new ArrayList<>(args.size());
    for (int i = 0; i < args.size(); i++) {
      A a = Objects.requireNonNull(args.get(i), "args[" + i + "]");
      contexts.add(TestJobContext.builder(a.getClass()).jobId(i + 1L).build());
    }
    return runBatch(handler, args, contexts);
  }

  /**
   * Runs {@code handler} on one batch of {@code args}, job {@code i} with {@code contexts.get(i)};
   * returns a result per job, in order.
   *
   * @throws IllegalArgumentException if the lists are empty or of different sizes
   */
  public static <A extends JobArgs> List<HandlerResult> runBatch(
      BatchJobHandler<A> handler, List<A> args, List<TestJobContext> contexts) {
    Objects.requireNonNull(handler, "handler");
    Objects.requireNonNull(args, "args");
    Objects.requireNonNull(contexts, "contexts");
    if (args.isEmpty() || args.size() != contexts.size()) {
      throw new IllegalArgumentException(
          "a batch needs at least one job and a context per job: got "
              + args.size()
              + " args and "
              + contexts.size()
              + " contexts");
    }
    List<Item<A>> items = new ArrayList<>(args.size());
    for (int i = 0; i < args.size(); i++) {
      items.add(
          new Item<>(Objects.requireNonNull(contexts.get(i), "contexts[" + i + "]"), args.get(i)));
    }
    Throwable thrown = null;
    try {
      handler.work(Collections.unmodifiableList(new ArrayList<BatchJob<A>>(items)));
    } catch (Throwable t) {
      thrown = t;
    }
    List<HandlerResult> results = new ArrayList<>(items.size());
    for (Item<A> item : items) {
      Throwable own = item.close();
      Throwable t = own != null ? own : thrown;
      results.add(
          t == null ? new HandlerResult(Outcome.COMPLETED, null, null) : resultOf(t, item.context));
    }
    return results;
  }

  private static HandlerResult resultOf(Throwable t, TestJobContext context) {
    if (t instanceof SnoozeJob s) {
      return new HandlerResult(Outcome.SNOOZED, s, s.delay());
    }
    if (t instanceof CancelJob || context.isCancelled()) {
      return new HandlerResult(Outcome.CANCELLED, t, null);
    }
    Outcome o = context.attempt() >= context.maxAttempts() ? Outcome.DISCARDED : Outcome.RETRYABLE;
    return new HandlerResult(o, t, null);
  }

  /** One job of a batch run by {@link #runBatch}. */
  private static final class Item<A extends JobArgs> implements BatchJob<A> {
    private final TestJobContext context;
    private final A args;
    private Throwable failed; // guarded by this
    private boolean closed; // guarded by this

    Item(TestJobContext context, A args) {
      this.context = context;
      this.args = args;
    }

    @Override
    public JobContext context() {
      return context;
    }

    @Override
    public A args() {
      return args;
    }

    @Override
    public synchronized void fail(Throwable cause) {
      Objects.requireNonNull(cause, "cause");
      if (closed) {
        throw new IllegalStateException(
            "job " + context.jobId() + ": fail() after its batch handler returned");
      }
      if (failed == null) {
        failed = cause;
      }
    }

    synchronized Throwable close() {
      closed = true;
      return failed;
    }
  }

  // The handler's declared type is JobHandler<? super A>: calling it needs one capture.
  private static <A extends JobArgs> void invoke(
      JobHandler<? super A> handler, A args, TestJobContext context) throws Exception {
    handler.work(context, args);
  }
}
