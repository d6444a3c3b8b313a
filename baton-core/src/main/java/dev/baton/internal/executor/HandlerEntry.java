package dev.baton.internal.executor;

import dev.baton.BatchJobHandler;
import dev.baton.JobArgs;
import dev.baton.JobHandler;
import java.time.Duration;

/**
 * A registered handler: its args type, the handler, and its kind's timeout (null for the client's
 * default). Exactly one of {@code handler} and {@code batchHandler} is set; {@code maxBatch} is the
 * batch handler's largest batch (0 for a one-job handler). Not public API.
 */
public record HandlerEntry<A extends JobArgs>(
    String kind,
    Class<A> argsType,
    JobHandler<A> handler,
    Duration timeout,
    BatchJobHandler<A> batchHandler,
    int maxBatch) {

  /** A handler of one job at a time. */
  public HandlerEntry(String kind, Class<A> argsType, JobHandler<A> handler, Duration timeout) {
    this(kind, argsType, handler, timeout, null, 0);
  }

  /** Whether this entry's handler works batches. */
  public boolean batches() {
    return batchHandler != null;
  }
}
