package dev.baton.internal.executor;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.internal.db.Db;
import dev.baton.internal.db.HolderStore;
import dev.baton.internal.db.WorkflowStore;
import dev.baton.internal.held.RunningJob;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import javax.sql.DataSource;

/**
 * What a handler's context does as its job's holder, on behalf of the executor running it: extend
 * the lease, complete the job in the handler's own transaction, move the attempt's deadline. Apart
 * from the executor so that a context depends on this and not on the executor that makes it. Not
 * public API.
 */
final class Holding {
  private final DataSource dataSource;
  private final HolderStore store;
  private final WorkflowStore workflow;
  private final ObjectMapper mapper;
  private final String schema;
  private final Duration lease;
  private final int maxOutputBytes;
  private final TimeoutSweeper timeouts;

  /**
   * What the holder writes under: the jobs' schema, the lease, and the largest output or step
   * result in bytes of JSON.
   */
  record Terms(String schema, Duration lease, int maxOutputBytes) {}

  Holding(
      DataSource dataSource,
      HolderStore store,
      ObjectMapper mapper,
      Terms terms,
      TimeoutSweeper timeouts) {
    this.dataSource = dataSource;
    this.store = store;
    this.workflow = new WorkflowStore(store.schema());
    this.mapper = mapper;
    this.schema = terms.schema();
    this.lease = terms.lease();
    this.maxOutputBytes = terms.maxOutputBytes();
    this.timeouts = timeouts;
  }

  /** The largest output or step result a handler may record, in bytes of JSON. */
  int maxOutputBytes() {
    return maxOutputBytes;
  }

  ObjectMapper mapper() {
    return mapper;
  }

  /** The schema the jobs live in, for their default idempotency keys. */
  String schema() {
    return schema;
  }

  Instant extendIfHeld(RunningJob rj, Duration extra) {
    return store.extendIfHeld(dataSource, rj.id(), rj.fence(), extra, lease);
  }

  boolean completeIfHeld(Connection c, RunningJob rj) {
    try {
      return rj.job().hasDependents()
          ? store.completeAndReleaseIfHeld(c, rj.id(), rj.fence())
          : store.completeIfHeld(c, rj.id(), rj.fence());
    } catch (SQLException e) {
      throw Db.wrap("cannot complete job (id=" + rj.id() + ") in the handler's transaction", e);
    }
  }

  boolean recordOutputIfHeld(RunningJob rj, String json) {
    return Db.inTransaction(
        dataSource,
        "cannot record output of job (id=" + rj.id() + ")",
        c -> store.recordOutputIfHeld(c, rj.id(), rj.fence(), json));
  }

  boolean recordStepIfHeld(RunningJob rj, String name, String json) {
    return Db.inTransaction(
        dataSource,
        "cannot record step \"" + name + "\" of job (id=" + rj.id() + ")",
        c -> store.recordStepIfHeld(c, rj.id(), rj.fence(), name, json));
  }

  boolean recordStepIfHeld(Connection c, RunningJob rj, String name, String json) {
    try {
      return store.recordStepIfHeld(c, rj.id(), rj.fence(), name, json);
    } catch (SQLException e) {
      throw Db.wrap(
          "cannot record step \""
              + name
              + "\" of job (id="
              + rj.id()
              + ") in the handler's"
              + " transaction",
          e);
    }
  }

  boolean recordProgressIfHeld(RunningJob rj, double fraction, String message) {
    return Db.inTransaction(
        dataSource,
        "cannot record progress of job (id=" + rj.id() + ")",
        c -> store.recordProgressIfHeld(c, rj.id(), rj.fence(), fraction, message));
  }

  /** The dependencies of job {@code id}. */
  java.util.List<WorkflowStore.EdgeRow> dependencies(long id) {
    return Db.inTransaction(
        dataSource,
        "cannot read dependencies of job (id=" + id + ")",
        c -> workflow.dependencies(c, id));
  }

  /** How many dependencies of job {@code id} are in each state, by state name. */
  java.util.Map<String, Long> dependencyCounts(long id) {
    return Db.inTransaction(
        dataSource,
        "cannot count dependencies of job (id=" + id + ")",
        c -> workflow.dependencyCounts(c, id));
  }

  /** The steps recorded for the job so far (a JSON object), or null if it is no longer held. */
  String readStepsIfHeld(RunningJob rj) {
    return Db.inTransaction(
        dataSource,
        "cannot read steps of job (id=" + rj.id() + ")",
        c -> store.readStepsIfHeld(c, rj.id(), rj.fence()));
  }

  /**
   * Sets the attempt's deadline ({@link System#nanoTime()} based) and makes sure a sweep interrupts
   * the handler at it ({@link TimeoutSweeper}).
   */
  void rescheduleTimeout(RunningJob rj, long deadlineNanos) {
    rj.deadlineNanos(deadlineNanos);
    rj.startTimeout();
    timeouts.arm(deadlineNanos);
  }

  /** {@code d} in nanoseconds, saturating instead of overflowing. */
  static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException e) {
      return d.isNegative() ? Long.MIN_VALUE / 2 : Long.MAX_VALUE / 2;
    }
  }
}
