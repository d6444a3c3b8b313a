package dev.baton.cli.lab;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One lab worker: on its own connection, claims a job by its strategy, works it (sleeps), records
 * the run and marks the job completed, until a claim finds no job left. Confined to its thread; the
 * first failure of any worker is put into the shared {@code failure} and stops the others at their
 * next claim.
 *
 * <p>Transactions: every statement commits on its own, except with {@link LockScope#WORK} for the
 * locking strategies, where the claim, the run and the completion are one transaction, so the row
 * stays locked while the job is worked.
 */
final class LabWorker implements Runnable {
  private final String name;
  private final Connection connection;
  private final LabTables tables;
  private final Strategy strategy;
  private final boolean holdsLockDuringWork;
  private final Duration work;
  private final CountDownLatch start;
  private final AtomicReference<Throwable> failure;
  private long retries;

  private PreparedStatement select;
  private PreparedStatement claim;
  private PreparedStatement anyAvailable;
  private PreparedStatement complete;

  LabWorker(
      String name,
      Connection connection,
      LabTables tables,
      LabSettings settings,
      Strategy strategy,
      CountDownLatch start,
      AtomicReference<Throwable> failure) {
    this.name = name;
    this.connection = connection;
    this.tables = tables;
    this.strategy = strategy;
    this.holdsLockDuringWork = strategy.locks() && settings.lockScope() == LockScope.WORK;
    this.work = settings.work();
    this.start = start;
    this.failure = failure;
  }

  /** Claims that came back without a job although jobs were left; read after the thread ended. */
  long retries() {
    return retries;
  }

  @Override
  public void run() {
    try {
      connection.setAutoCommit(!holdsLockDuringWork);
      select = connection.prepareStatement(tables.expand(LabTables.SELECT_FIRST_AVAILABLE));
      claim = connection.prepareStatement(tables.expand(claimSql()));
      anyAvailable = connection.prepareStatement(tables.expand(LabTables.ANY_AVAILABLE));
      complete = connection.prepareStatement(tables.expand(LabTables.COMPLETE));
      start.await();
      while (failure.get() == null) {
        OptionalLong id = claim();
        if (id.isEmpty()) {
          break;
        }
        if (!work.isZero()) {
          TimeUnit.NANOSECONDS.sleep(work.toNanos());
        }
        complete(id.getAsLong());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      failure.compareAndSet(null, e);
    } catch (SQLException | RuntimeException e) {
      failure.compareAndSet(null, new LabException(name + ": " + e.getMessage(), e));
    }
  }

  private String claimSql() {
    return switch (strategy) {
      case NAIVE -> LabTables.MARK_RUNNING;
      case OPTIMISTIC -> LabTables.MARK_RUNNING_IF_AVAILABLE;
      case PESSIMISTIC -> LabTables.CLAIM_LOCKING;
      case SKIP_LOCKED -> LabTables.CLAIM_SKIPPING_LOCKED;
    };
  }

  /** The id of the job this worker now holds (state running), or empty when none is left. */
  private OptionalLong claim() throws SQLException {
    while (failure.get() == null) {
      if (!strategy.locks()) {
        OptionalLong id = first(select);
        if (id.isEmpty()) {
          return id;
        }
        claim.setString(1, name);
        claim.setLong(2, id.getAsLong());
        if (claim.executeUpdate() == 1) {
          return id;
        }
        // Only optimistic's update is conditional: another worker marked the job between our
        // read and our write.
        retries++;
        continue;
      }
      OptionalLong id = claimLocking();
      if (id.isPresent()) {
        return id;
      }
      if (strategy == Strategy.PESSIMISTIC && anyAvailable()) {
        // The rows the statement saw when it began waiting were all taken by the time it got
        // them. SKIP LOCKED comes back empty only when every row left is held by a worker that is
        // claiming it, so it stops.
        retries++;
        continue;
      }
      return OptionalLong.empty();
    }
    return OptionalLong.empty();
  }

  /** Pessimistic and skip-locked: lock and mark in one statement. */
  private OptionalLong claimLocking() throws SQLException {
    claim.setString(1, name);
    OptionalLong id = first(claim);
    if (id.isEmpty() && holdsLockDuringWork) {
      connection.rollback();
    }
    return id;
  }

  private boolean anyAvailable() throws SQLException {
    boolean any = first(anyAvailable).orElse(0) == 1;
    if (holdsLockDuringWork) {
      connection.rollback();
    }
    return any;
  }

  private void complete(long id) throws SQLException {
    complete.setLong(1, id);
    complete.setString(2, name);
    complete.setLong(3, id);
    complete.executeUpdate();
    if (holdsLockDuringWork) {
      connection.commit();
    }
  }

  private static OptionalLong first(PreparedStatement ps) throws SQLException {
    try (ResultSet rs = ps.executeQuery()) {
      return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
    }
  }
}
