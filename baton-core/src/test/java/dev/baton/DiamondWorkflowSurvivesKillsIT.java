package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.testing.KilledWorkers;
import dev.baton.testing.TestDatabase;
import dev.baton.testing.WorkflowWorkerMain;
import dev.baton.testing.WorkflowWorkerMain.DiamondStep;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Invariant 12 across crashes: {@value #DIAMONDS} diamond workflows (a -> b, a -> c, b + c -> d)
 * worked by {@value #WORKERS} worker processes, one of which is SIGKILLed every {@value
 * #KILL_EVERY_MS} ms and replaced. Every d runs after both its b and c completed and reads both
 * outputs; every step's receiver-side effect (written in the transaction that completes it) is
 * there exactly once: {@value #DIAMONDS} per step.
 */
class DiamondWorkflowSurvivesKillsIT {
  static final int DIAMONDS = 500;
  static final int WORKERS = 3;
  static final long KILL_EVERY_MS = 2_000;

  @Test
  void everyDiamondsLastStepRunsOnceAfterBothBranchesDespiteKills() throws Exception {
    TestDatabase db = TestDatabase.get();
    String schema = db.newMigratedSchema();
    try (HikariDataSource ds = db.dataSource(4);
        Baton client =
            Baton.builder(ds)
                .config(BatonConfig.builder().schema(schema).allowUnknownKinds(true).build())
                .build()) {
      EnqueueOptions queue = EnqueueOptions.builder().queue(WorkflowWorkerMain.QUEUE).build();
      for (int i = 0; i < DIAMONDS; i++) {
        client.enqueueWorkflow(
            Workflow.builder()
                .step("a", new DiamondStep("a", i), queue)
                .step("b", new DiamondStep("b", i), queue, "a")
                .step("c", new DiamondStep("c", i), queue, "a")
                .step("d", new DiamondStep("d", i), queue, "b", "c")
                .build());
      }
      try (KilledWorkers workers =
          new KilledWorkers(db, schema, WORKERS, Duration.ofMillis(KILL_EVERY_MS))) {
        long t0 = System.nanoTime();
        long jobs = 4L * DIAMONDS;
        long deadline = System.nanoTime() + Duration.ofSeconds(100).toNanos();
        while (completed(db, schema) < jobs) {
          if (System.nanoTime() > deadline) {
            throw new AssertionError(
                "not every job completed in time: "
                    + db.queryLong(
                        "SELECT count(*) FROM \"" + schema + "\".job WHERE state = 'pending'")
                    + " still pending, "
                    + completed(db, schema)
                    + " of "
                    + jobs
                    + " completed");
          }
          workers.killIfDue();
          Thread.sleep(50);
        }
        long ms = Duration.ofNanos(System.nanoTime() - t0).toMillis();
        System.out.printf(
            "diamonds: %d workflows (%d jobs) across %d workers, %d SIGKILLs, done in %d ms"
                + " (%d rescues)%n",
            DIAMONDS,
            jobs,
            WORKERS,
            workers.kills(),
            ms,
            db.queryLong(
                "SELECT coalesce(sum((metadata ->> 'rescue_count')::int), 0) FROM \""
                    + schema
                    + "\".job"));

        String s = "\"" + schema + "\"";
        for (String step : List.of("a", "b", "c", "d")) {
          assertThat(
                  db.queryLong("SELECT count(*) FROM " + s + ".effect WHERE step = '" + step + "'"))
              .as("effects of step %s", step)
              .isEqualTo(DIAMONDS);
        }
        assertThat(db.queryLong("SELECT count(DISTINCT (instance, step)) FROM " + s + ".effect"))
            .as("no step's effect twice")
            .isEqualTo(jobs);
        assertThat(db.queryLong("SELECT count(*) FROM " + s + ".effect WHERE step = 'd' AND ok"))
            .as("d read both completed branches and their outputs")
            .isEqualTo(DIAMONDS);
        assertThat(
                db.queryLong(
                    "SELECT count(*) FROM "
                        + s
                        + ".job d JOIN "
                        + s
                        + ".job_dependency e ON e.job_id = d.id JOIN "
                        + s
                        + ".job b ON b.id = e.depends_on"
                        + " WHERE d.kind = b.kind AND d.args ->> 'step' = 'd'"
                        + " AND b.finalized_at <= d.attempted_at AND e.state = 'completed'"))
            .as("every d's last attempt began after both its branches completed")
            .isEqualTo(2L * DIAMONDS);
      }
    }
  }

  private static long completed(TestDatabase db, String schema) {
    return db.queryLong("SELECT count(*) FROM \"" + schema + "\".job WHERE state = 'completed'");
  }
}
