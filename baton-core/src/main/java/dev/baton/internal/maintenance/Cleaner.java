package dev.baton.internal.maintenance;

import dev.baton.internal.TimeSource;
import dev.baton.internal.db.Leadership;
import dev.baton.internal.db.MaintenanceStore;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes finished jobs past their retention, oldest first, in bounded batches: completed after
 * {@code completedRetention} (default 24 h), cancelled and discarded after their own (default 7 d).
 * With archiving on, rows are moved to {@code job_archive} in the same statement instead. Deleting
 * a job frees its idempotency key. It also deletes the completion counts ({@code job_completions},
 * written by completions that delete their row) of buckets older than a day. Leader only, fenced by
 * term.
 *
 * <p>Settings: interval {@code cleanInterval} (default 30 s); batch {@code cleanBatchSize} (default
 * 1,000) rows per statement, each its own transaction; at most {@value #MAX_BATCHES} batches per
 * state per pass, so one pass never holds the leader's thread for long. Not public API.
 */
public final class Cleaner implements MaintenanceService {
  private static final Logger log = LoggerFactory.getLogger(Cleaner.class);

  /** Most batches per state in one pass. */
  public static final int MAX_BATCHES = 100;

  private final DataSource dataSource;
  private final MaintenanceStore store;
  private final TimeSource time;
  private final Map<String, Duration> retention;
  private final int batchSize;
  private final boolean archive;

  /** What becomes of a finished job past its retention. */
  public enum Expired {
    /** The row is deleted. */
    DELETED,
    /** The row is moved to {@code job_archive}. */
    ARCHIVED
  }

  /**
   * What a cleaner removes.
   *
   * @param completed how long a completed job is kept
   * @param cancelled how long a cancelled job is kept
   * @param discarded how long a discarded job is kept
   * @param batchSize the most rows one statement removes
   * @param expired whether a job past its retention is deleted or archived
   */
  public record Settings(
      Duration completed, Duration cancelled, Duration discarded, int batchSize, Expired expired) {}

  /** A cleaner. */
  public Cleaner(
      DataSource dataSource, MaintenanceStore store, TimeSource time, Settings settings) {
    this.dataSource = dataSource;
    this.store = store;
    this.time = time;
    this.retention = new LinkedHashMap<>();
    retention.put("completed", settings.completed());
    retention.put("cancelled", settings.cancelled());
    retention.put("discarded", settings.discarded());
    this.batchSize = settings.batchSize();
    this.archive = settings.expired() == Expired.ARCHIVED;
  }

  @Override
  public String name() {
    return "cleaner";
  }

  /** One pass. Returns how many jobs were deleted (or archived). */
  @Override
  public int runOnce(Leadership lead) {
    int total = 0;
    for (Map.Entry<String, Duration> e : retention.entrySet()) {
      int n = 0;
      for (int batch = 0; batch < MAX_BATCHES; batch++) {
        int done =
            store.clean(
                dataSource, lead, time.dbNow(), e.getKey(), e.getValue(), batchSize, archive);
        n += done;
        if (done < batchSize) {
          break;
        }
      }
      if (n > 0) {
        log.info(
            "{} {} {} jobs finished more than {} ago",
            archive ? "archived" : "deleted",
            n,
            e.getKey(),
            e.getValue());
      }
      total += n;
    }
    store.pruneCompletionCounts(dataSource, lead, time.dbNow());
    return total;
  }
}
