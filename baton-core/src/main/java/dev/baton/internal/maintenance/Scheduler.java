package dev.baton.internal.maintenance;

import dev.baton.internal.TimeSource;
import dev.baton.internal.db.Leadership;
import dev.baton.internal.db.MaintenanceStore;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes due {@code scheduled} and {@code retryable} jobs {@code available}, and notifies each queue
 * that got some. Leader only, fenced by term; SKIP LOCKED, state re-checked under the lock.
 *
 * <p>Settings: interval {@code maintenanceInterval} (default 1 s); batch {@value
 * #DEFAULT_BATCH_SIZE} rows per statement, repeated until a short page. Not public API.
 */
public final class Scheduler implements MaintenanceService {
  private static final Logger log = LoggerFactory.getLogger(Scheduler.class);

  /** Rows moved per statement. */
  public static final int DEFAULT_BATCH_SIZE = 5_000;

  private final DataSource dataSource;
  private final MaintenanceStore store;
  private final TimeSource time;
  private final int batchSize;

  /** A scheduler. */
  public Scheduler(DataSource dataSource, MaintenanceStore store, TimeSource time, int batchSize) {
    this.dataSource = dataSource;
    this.store = store;
    this.time = time;
    this.batchSize = batchSize;
  }

  @Override
  public String name() {
    return "scheduler";
  }

  /** One pass. Returns how many jobs became available. */
  @Override
  public int runOnce(Leadership lead) {
    int total = 0;
    while (true) {
      int moved = store.schedule(dataSource, lead, time.dbNow(), batchSize);
      total += moved;
      if (moved < batchSize) {
        break;
      }
    }
    if (total > 0) {
      log.debug("made {} due jobs available", total);
    }
    return total;
  }
}
