package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.testing.ChildProcess;
import dev.baton.testing.StepsWorkerMain;
import dev.baton.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Invariant 12, "a finished step is not run again by a later attempt", across a real crash: a
 * worker process runs a job of three durable steps, each with a side effect in the database, and is
 * SIGKILLed after step two committed. The next attempt, on another node, runs only step three; the
 * side effects of steps one and two stay at one each.
 */
class DurableStepsSurviveAKillIT {

  @Test
  void aJobKilledAfterItsSecondStepRunsOnlyItsThirdStepAgain() throws Exception {
    Duration lease = Duration.ofSeconds(2);
    TestDatabase db = TestDatabase.get();
    String schema = db.newMigratedSchema();
    db.execute(
        "CREATE TABLE \"" + schema + "\".step_effect (job_id bigint NOT NULL, step text NOT NULL)");
    String workerNode = "steps-" + ProcessHandle.current().pid();
    List<String> ranOnSurvivor = new CopyOnWriteArrayList<>();

    try (HikariDataSource ds = db.dataSource(8);
        ChildProcess worker =
            ChildProcess.start(
                workerNode,
                StepsWorkerMain.class,
                List.of(),
                db.jdbcUrl(),
                schema,
                workerNode,
                Long.toString(lease.toMillis()));
        Baton survivor =
            Baton.builder(ds)
                .config(
                    BatonConfig.builder()
                        .schema(schema)
                        .nodeId("survivor-" + ProcessHandle.current().pid())
                        .queue(StepsWorkerMain.QUEUE, 1)
                        .lease(lease)
                        .pollInterval(Duration.ofMillis(200))
                        .maintenanceInterval(Duration.ofMillis(200))
                        .build())
                .handler(
                    StepsWorkerMain.ThreeSteps.class,
                    StepsWorkerMain.handler(ds, schema, ranOnSurvivor::add, id -> {}))
                .build()) {
      await("child ready")
          .atMost(Duration.ofSeconds(60))
          .until(() -> worker.line("ready").isPresent());
      long id =
          survivor
              .enqueue(
                  new StepsWorkerMain.ThreeSteps(1),
                  EnqueueOptions.builder().queue(StepsWorkerMain.QUEUE).build())
              .job()
              .id();
      await("step two committed on the worker")
          .atMost(Duration.ofSeconds(30))
          .until(() -> worker.line("step two committed job " + id).isPresent());
      worker.killHard();

      survivor.start();
      await("the job completes on the survivor")
          .atMost(Duration.ofSeconds(60))
          .until(() -> survivor.job(id).map(j -> j.state() == JobState.COMPLETED).orElse(false));

      assertThat(ranOnSurvivor)
          .as("step bodies run by the second attempt")
          .containsExactly("three");
      for (String step : List.of("one", "two", "three")) {
        assertThat(
                db.queryLong(
                    "SELECT count(*) FROM \""
                        + schema
                        + "\".step_effect WHERE job_id = "
                        + id
                        + " AND step = '"
                        + step
                        + "'"))
            .as("side effects of step %s", step)
            .isEqualTo(1);
      }
      assertThat(survivor.job(id).orElseThrow().errors()).as("the rescue's entry").hasSize(1);
    }
  }
}
