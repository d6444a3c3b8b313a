package dev.baton.internal.maintenance;

import dev.baton.internal.db.Db;
import dev.baton.internal.db.Leadership;
import dev.baton.internal.db.ReleaseStore;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Releases the dependents of finished jobs whose finish did not: a job discarded or cancelled by
 * the rescuer or by an operator, and a job claimed before a dependent on it was enqueued (its
 * holder did not know it had dependents). Finds them through the partial index of edges not yet
 * counted, which is empty when no job waits, so a pass costs one index probe where nobody uses
 * dependencies.
 *
 * <p>A release is safe to repeat and to race: it locks the edges it counts and re-checks that they
 * are uncounted, so two leaders, or a leader and a finishing holder, count each edge once. Its
 * writes are therefore not fenced by the term. Settings: interval {@code maintenanceInterval};
 * batch {@value #DEFAULT_BATCH_SIZE} finished jobs per transaction, repeated until a short page.
 * Not public API.
 */
public final class Releaser implements MaintenanceService {
  private static final Logger log = LoggerFactory.getLogger(Releaser.class);

  /** Finished jobs whose dependents are released per transaction. */
  public static final int DEFAULT_BATCH_SIZE = 1_000;

  private final DataSource dataSource;
  private final ReleaseStore store;
  private final int batchSize;

  /** A releaser. */
  public Releaser(DataSource dataSource, ReleaseStore store, int batchSize) {
    this.dataSource = dataSource;
    this.store = store;
    this.batchSize = batchSize;
  }

  @Override
  public String name() {
    return "releaser";
  }

  /** One pass. Returns how many dependents changed state. */
  @Override
  public int runOnce(Leadership lead) {
    int total = 0;
    String what = "cannot release the dependents of finished jobs";
    while (true) {
      // The read alone, in autocommit: a pass that finds nothing (the usual case) opens no
      // transaction, so no connection sits idle in one between round trips. The release re-checks
      // each edge under its lock, so a job read here and released meanwhile changes nothing.
      long[] missed = Db.inTransaction(dataSource, what, c -> store.missed(c, batchSize));
      if (missed.length == 0) {
        break;
      }
      total += Db.inExplicitTransaction(dataSource, what, c -> store.release(c, missed).size());
      if (missed.length < batchSize) {
        break;
      }
    }
    if (total > 0) {
      log.debug(
          "released or cancelled {} dependents of jobs finished without releasing them", total);
    }
    return total;
  }
}
