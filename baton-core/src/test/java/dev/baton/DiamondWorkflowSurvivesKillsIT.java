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
 * #KILL_EVERY_MS} ms and replaced. Every attempt of d starts after both its b and c completed (as
 * read in the database when it starts) and reads both outputs; every step's receiver-side effect
 * (written in the transaction that completes it) is there exactly once: {@value #DIAMONDS} per
 * step.
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
        assertThat(db.queryLong("SELECT count(DISTINCT job_id) FROM " + s + ".step_start"))
            .as("every d's start recorded")
            .isEqualTo(DIAMONDS);
        assertThat(
                db.queryString(
                    "SELECT coalesce(string_agg(job_id || ':' || deps_completed, ','), '') FROM"
                        + " (SELECT * FROM "
                        + s
                        + ".step_start WHERE deps_completed <> 2 LIMIT 20) f"))
            .as(
                "d's attempts that started before both its branches completed (job:completed, first 20)")
            .isEmpty();
        assertThat(db.queryLong("SELECT count(*) FROM " + s + ".effect WHERE step = 'd' AND ok"))
            .as("d read both completed branches and their outputs")
            .isEqualTo(DIAMONDS);
      }
    }
  }

  private static long completed(TestDatabase db, String schema) {
    return db.queryLong("SELECT count(*) FROM \"" + schema + "\".job WHERE state = 'completed'");
  }
}
