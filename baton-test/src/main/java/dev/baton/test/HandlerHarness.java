package dev.baton.test;

import dev.baton.CancelJob;
import dev.baton.JobArgs;
import dev.baton.JobHandler;
import dev.baton.SnoozeJob;
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

  // The handler's declared type is JobHandler<? super A>: calling it needs one capture.
  private static <A extends JobArgs> void invoke(
      JobHandler<? super A> handler, A args, TestJobContext context) throws Exception {
    handler.work(context, args);
  }
}
