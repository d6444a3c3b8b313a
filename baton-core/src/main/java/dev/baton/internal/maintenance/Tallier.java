package dev.baton.internal.maintenance;

import dev.baton.internal.TimeSource;
import dev.baton.internal.db.Leadership;
import dev.baton.internal.db.MaintenanceStore;
import java.time.Duration;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts the finished jobs per minute, queue and kind into {@code job_stat_minute} (schema version
 * 12), the history {@link dev.baton.admin.BatonAdmin#history} reads, and deletes the minutes older
 * than {@link #KEEP}. Reads the rows finalized since its last pass through {@code
 * job_finalized_idx} (and the completions that deleted their row, from {@code job_completions});
 * nothing is written per job.
 *
 * <p>Each pass counts again the minutes from {@link #OVERLAP} before where the last pass ended and
 * keeps the larger of the old and new counts, so a job is counted once: also when its transaction
 * committed after a pass had covered its {@code finalized_at} (within the overlap), when a pass is
 * repeated, and when the leader changes (the mark is in the database). A row that commits more than
 * {@link #OVERLAP} after its {@code finalized_at} is not counted. After a pause (no leader, or a
 * first pass on a schema that already holds finished jobs) a pass catches up {@link #SPAN} per
 * statement, at most {@link #MAX_STEPS} statements a pass. Leader only, fenced by term. Not public
 * API.
 */
public final class Tallier implements MaintenanceService {
  private static final Logger log = LoggerFactory.getLogger(Tallier.class);

  /** How often the leader runs a pass: every minute. */
  public static final Duration DEFAULT_INTERVAL = Duration.ofMinutes(1);

  /** How far back from where the last pass ended a pass counts again: 2 minutes. */
  public static final Duration OVERLAP = Duration.ofMinutes(2);

  /** How long minutes of history are kept: 7 days. */
  public static final Duration KEEP = Duration.ofDays(7);

  /**
   * The most of finalized time one statement counts: 15 minutes, so that one statement reads at
   * most 15 minutes of finished jobs, and the pass never holds the leader's thread (which the
   * rescuer and the scheduler share) for long.
   */
  public static final Duration SPAN = Duration.ofMinutes(15);

  /**
   * The most statements in one pass: 32, 8 hours of finished jobs; a stretch without any costs a
   * statement no matter how long.
   */
  public static final int MAX_STEPS = 32;

  private final DataSource dataSource;
  private final MaintenanceStore store;
  private final TimeSource time;

  /** A tallier. */
  public Tallier(DataSource dataSource, MaintenanceStore store, TimeSource time) {
    this.dataSource = dataSource;
    this.store = store;
    this.time = time;
  }

  @Override
  public String name() {
    return "tallier";
  }

  /** One pass. Returns how many minute rows were written or deleted. */
  @Override
  public int runOnce(Leadership lead) {
    int written = 0;
    for (int step = 0; step < MAX_STEPS; step++) {
      MaintenanceStore.Tally t = store.tally(dataSource, lead, time.dbNow(), OVERLAP, KEEP, SPAN);
      written += t.minutes();
      if (!t.through().isBefore(t.now())) {
        break;
      }
    }
    int pruned = store.pruneHistory(dataSource, lead, time.dbNow(), KEEP);
    if (pruned > 0) {
      log.debug("deleted {} minutes of history older than {}", pruned, KEEP);
    }
    return written + pruned;
  }
}
