package dev.baton.internal.held;

import dev.baton.internal.db.Finish;
import java.util.concurrent.atomic.LongAdder;

/**
 * Where the executor hands each job's finish to be written: the completer, which batches them.
 * Defined here so that the completer depends on the executor's types and not the other way round.
 * Not public API.
 */
public interface FinishQueue {

  /**
   * Queues {@code finish} of {@code job}, blocking while the queue is full; {@code onWritten} is
   * incremented once the finish is written (not when it is fenced off).
   */
  void submit(RunningJob job, Finish finish, LongAdder onWritten) throws InterruptedException;
}
