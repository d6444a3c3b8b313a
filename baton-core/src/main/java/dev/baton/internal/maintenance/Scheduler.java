package dev.baton.internal.maintenance;

import dev.baton.internal.db.JobStore;
import javax.sql.DataSource;

/**
 * Makes due {@code scheduled} and {@code retryable} jobs {@code available}, and notifies each queue
 * that got some.
 *
 * <p>Safe to run on several nodes at once (SKIP LOCKED, state re-checked under the lock). Not
 * public API.
 */
public final class Scheduler {

  /** Rows moved per statement: 5,000. A pass repeats until a short page. */
  public static final int DEFAULT_BATCH_SIZE = 5_000;

  private final DataSource dataSource;
  private final JobStore store;
  private final int batchSize;

  /** A scheduler. */
  public Scheduler(DataSource dataSource, JobStore store, int batchSize) {
    this.dataSource = dataSource;
    this.store = store;
    this.batchSize = batchSize;
  }

  /** One pass. Returns how many jobs became available. */
  public int runOnce() {
    int total = 0;
    while (true) {
      int moved = store.scheduleDue(dataSource, batchSize);
      total += moved;
      if (moved < batchSize) {
        return total;
      }
    }
  }
}
