package dev.baton.internal.executor;

import dev.baton.BatchJobHandler;
import dev.baton.JobArgs;
import dev.baton.JobHandler;
import dev.baton.RetryPolicy;
import java.time.Duration;

/**
 * A registered handler: its args type, the handler, and its kind's settings (timeout and retry
 * policy, each null for the client's default). Exactly one of {@code handler} and {@code
 * batchHandler} is set; {@code maxBatch} is the batch handler's largest batch (0 for a one-job
 * handler). Not public API.
 */
public record HandlerEntry<A extends JobArgs>(
    String kind,
    Class<A> argsType,
    JobHandler<A> handler,
    Settings settings,
    BatchJobHandler<A> batchHandler,
    int maxBatch) {

  /** A kind's timeout and retry policy; each null for the client's. */
  public record Settings(Duration timeout, RetryPolicy retryPolicy) {
    /** Neither set. */
    public static final Settings NONE = new Settings(null, null);
  }

  /** A handler of one job at a time, with the client's retry policy. */
  public HandlerEntry(String kind, Class<A> argsType, JobHandler<A> handler, Duration timeout) {
    this(kind, argsType, handler, new Settings(timeout, null), null, 0);
  }

  /** The kind's timeout, or null for the client's. */
  public Duration timeout() {
    return settings.timeout();
  }

  /** The kind's retry policy, or null for the client's. */
  public RetryPolicy retryPolicy() {
    return settings.retryPolicy();
  }

  /** Whether this entry's handler works batches. */
  public boolean batches() {
    return batchHandler != null;
  }

  /** The handler (one-job or batch) as registered, for reading its class. */
  public Object registered() {
    return batches() ? batchHandler : handler;
  }

  /** This entry with {@code settings}. */
  public HandlerEntry<A> withSettings(Settings settings) {
    return new HandlerEntry<>(kind, argsType, handler, settings, batchHandler, maxBatch);
  }
}
