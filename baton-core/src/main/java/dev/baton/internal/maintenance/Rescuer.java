package dev.baton.internal.maintenance;

import dev.baton.internal.TimeSource;
import dev.baton.internal.db.Leadership;
import dev.baton.internal.db.MaintenanceStore;
import dev.baton.internal.executor.NodeCounters;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Returns running jobs whose holder stopped heartbeating (lease expired) or overran its deadline to
 * the queue: {@code retryable}, or {@code discarded} at max attempts, or {@code cancelled} when a
 * cancel was asked for; each with an error entry saying which ("lease expired on node X" /
 * "deadline exceeded on node X"), and {@code rescue_count} in metadata. Rows are picked with SKIP
 * LOCKED and re-checked under the lock, so a job its holder finished meanwhile is untouched; a job
 * is never rescued before its lease ran out by the database clock. Leader only, fenced by term.
 *
 * <p>Settings: interval {@code maintenanceInterval} (default 1 s); batch {@value
 * #DEFAULT_BATCH_SIZE} rows per statement, repeated until a short page. Not public API.
 */
public final class Rescuer implements MaintenanceService {
  private static final Logger log = LoggerFactory.getLogger(Rescuer.class);

  /** Rows rescued per statement. */
  public static final int DEFAULT_BATCH_SIZE = 1_000;

  private final DataSource dataSource;
  private final MaintenanceStore store;
  private final NodeCounters counters;
  private final TimeSource time;
  private final int batchSize;

  /** A rescuer. */
  public Rescuer(
      DataSource dataSource,
      MaintenanceStore store,
      NodeCounters counters,
      TimeSource time,
      int batchSize) {
    this.dataSource = dataSource;
    this.store = store;
    this.counters = counters;
    this.time = time;
    this.batchSize = batchSize;
  }

  @Override
  public String name() {
    return "rescuer";
  }

  /** One pass: rescues every expired job, in batches. Returns how many were rescued. */
  @Override
  public int runOnce(Leadership lead) {
    int total = 0;
    while (true) {
      List<MaintenanceStore.Rescued> page = store.rescue(dataSource, lead, time.dbNow(), batchSize);
      total += page.size();
      if (log.isDebugEnabled()) {
        for (MaintenanceStore.Rescued r : page) {
          log.debug("rescued job {} from node {} as {}", r.id(), r.attemptedBy(), r.state());
        }
      }
      if (page.size() < batchSize) {
        break;
      }
    }
    if (total > 0) {
      counters.rescued.add(total);
      log.info("rescued {} jobs whose lease expired or deadline passed", total);
    }
    return total;
  }
}
