package dev.baton.internal.executor;

import dev.baton.BatchJobHandler;
import dev.baton.JobArgs;
import dev.baton.JobHandler;
import dev.baton.RetryPolicy;
import java.time.Duration;

/**
 * A registered handler: its args type, the handler, and its kind's timeout and retry policy (each
 * null for the client's default). Exactly one of {@code handler} and {@code batchHandler} is set;
 * {@code maxBatch} is the batch handler's largest batch (0 for a one-job handler). Not public API.
 */
public record HandlerEntry<A extends JobArgs>(
    String kind,
    Class<A> argsType,
    JobHandler<A> handler,
    Duration timeout,
    RetryPolicy retryPolicy,
    BatchJobHandler<A> batchHandler,
    int maxBatch) {

  /** A handler of one job at a time, with the client's retry policy. */
  public HandlerEntry(String kind, Class<A> argsType, JobHandler<A> handler, Duration timeout) {
    this(kind, argsType, handler, timeout, null, null, 0);
  }

  /** Whether this entry's handler works batches. */
  public boolean batches() {
    return batchHandler != null;
  }

  /** The handler (one-job or batch) as registered, for reading its class. */
  public Object registered() {
    return batches() ? batchHandler : handler;
  }

  /** This entry with {@code timeout} and {@code retryPolicy} (each null for the client's). */
  public HandlerEntry<A> withSettings(Duration timeout, RetryPolicy retryPolicy) {
    return new HandlerEntry<>(
        kind, argsType, handler, timeout, retryPolicy, batchHandler, maxBatch);
  }
}
