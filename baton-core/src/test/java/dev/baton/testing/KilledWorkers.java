package dev.baton.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A fleet of {@link WorkflowWorkerMain} processes on one schema, one of which is SIGKILLed and
 * replaced by a fresh one every {@code killEvery}: what the workflow and batch crash tests run
 * against. Also creates the workers' effect table. Closing it kills the workers left.
 */
public final class KilledWorkers implements AutoCloseable {
  private final TestDatabase db;
  private final String schema;
  private final Duration killEvery;
  private final List<ChildProcess> workers = new ArrayList<>();
  private int started;
  private int kills;
  private long nextKillNanos;

  /**
   * Creates the tables {@code effect (instance, step, ok, node)} and {@code step_start (job_id,
   * deps_completed, deps_open)} in {@code schema} and starts {@code size} workers; the first kill
   * comes {@code killEvery} after this returns.
   */
  public KilledWorkers(TestDatabase db, String schema, int size, Duration killEvery)
      throws Exception {
    this.db = db;
    this.schema = schema;
    this.killEvery = killEvery;
    db.execute(
        "CREATE TABLE \""
            + schema
            + "\".effect (instance int NOT NULL, step text NOT NULL, ok boolean NOT NULL,"
            + " node text NOT NULL)");
    db.execute(
        "CREATE TABLE \""
            + schema
            + "\".step_start (job_id bigint NOT NULL, deps_completed bigint NOT NULL,"
            + " deps_open bigint NOT NULL)");
    for (int i = 0; i < size; i++) {
      workers.add(startOne());
    }
    nextKillNanos = System.nanoTime() + killEvery.toNanos();
  }

  /** Kills one worker (round robin) and starts its replacement, when the next kill is due. */
  public void killIfDue() throws Exception {
    if (System.nanoTime() < nextKillNanos) {
      return;
    }
    ChildProcess victim = workers.remove(kills % workers.size());
    victim.killHard();
    victim.close();
    kills++;
    workers.add(startOne());
    nextKillNanos = System.nanoTime() + killEvery.toNanos();
  }

  /** The workers killed so far. */
  public int kills() {
    return kills;
  }

  private ChildProcess startOne() throws Exception {
    String node = "wf-" + started++ + "-" + ProcessHandle.current().pid();
    return ChildProcess.start(
        node, WorkflowWorkerMain.class, List.of(), db.jdbcUrl(), schema, node, "4", "2000");
  }

  @Override
  public void close() throws Exception {
    for (ChildProcess w : workers) {
      w.killHard();
      w.close();
    }
  }
}
