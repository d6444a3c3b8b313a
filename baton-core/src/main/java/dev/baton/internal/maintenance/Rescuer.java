package dev.baton.internal.maintenance;

import dev.baton.internal.db.JobStore;
import dev.baton.internal.executor.NodeCounters;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Returns running jobs whose holder stopped heartbeating (lease expired) or overran its deadline to
 * the queue: {@code retryable}, or {@code discarded} at max attempts, or {@code cancelled} when a
 * cancel was asked for; each with an error entry saying which, and {@code rescue_count} in
 * metadata.
 *
 * <p>Safe to run on several nodes at once: rows are picked with SKIP LOCKED and re-checked under
 * the lock, so a job that finished meanwhile is left alone. A job is never rescued before its lease
 * ran out by the database clock.
 *
 * <p>Not public API.
 */
public final class Rescuer {
  private static final Logger log = LoggerFactory.getLogger(Rescuer.class);

  /** Rows rescued per statement: 1,000. A pass repeats until a short page. */
  public static final int DEFAULT_BATCH_SIZE = 1_000;

  private final DataSource dataSource;
  private final JobStore store;
  private final NodeCounters counters;
  private final int batchSize;

  /** A rescuer. */
  public Rescuer(DataSource dataSource, JobStore store, NodeCounters counters, int batchSize) {
    this.dataSource = dataSource;
    this.store = store;
    this.counters = counters;
    this.batchSize = batchSize;
  }

  /** One pass: rescues every expired job, in batches. Returns how many were rescued. */
  public int runOnce() {
    int total = 0;
    while (true) {
      List<JobStore.Rescued> page = store.rescueExpired(dataSource, batchSize);
      total += page.size();
      if (log.isDebugEnabled()) {
        for (JobStore.Rescued r : page) {
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
