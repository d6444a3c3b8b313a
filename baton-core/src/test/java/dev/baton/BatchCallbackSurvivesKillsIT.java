package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.testing.KilledWorkers;
import dev.baton.testing.TestDatabase;
import dev.baton.testing.WorkflowWorkerMain;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Invariant 12, "a batch callback runs once", across crashes: a batch of {@value #MEMBERS} jobs,
 * every {@value #FAIL_EVERY}th of which fails its only attempt (discarded), worked by {@value
 * #WORKERS} worker processes, one SIGKILLed every {@value #KILL_EVERY_MS} ms and replaced. Every
 * attempt of the callback starts after every member is final (as read in the database when it
 * starts); the callback's effect (written in the transaction that completes it) is there exactly
 * once, with the counts of completed and discarded members.
 */
class BatchCallbackSurvivesKillsIT {
  static final int MEMBERS = 10_000;
  static final int FAIL_EVERY = 50;
  static final int WORKERS = 3;
  static final long KILL_EVERY_MS = 2_000;

  @Test
  void theCallbackRunsOnceWithTheCountsDespiteKills() throws Exception {
    TestDatabase db = TestDatabase.get();
    String schema = db.newMigratedSchema();
    try (HikariDataSource ds = db.dataSource(4);
        Baton client =
            Baton.builder(ds)
                .config(BatonConfig.builder().schema(schema).allowUnknownKinds(true).build())
                .build()) {
      EnqueueOptions queue = EnqueueOptions.builder().queue(WorkflowWorkerMain.QUEUE).build();
      EnqueueOptions once =
          EnqueueOptions.builder().queue(WorkflowWorkerMain.QUEUE).maxAttempts(1).build();
      List<JobRequest> members = new ArrayList<>();
      int failing = 0;
      for (int i = 0; i < MEMBERS; i++) {
        boolean fail = i % FAIL_EVERY == 0;
        failing += fail ? 1 : 0;
        members.add(
            JobRequest.of(new WorkflowWorkerMain.BatchMember(i, fail), fail ? once : queue));
      }
      EnqueuedBatch batch =
          client.enqueueBatch(
              members, JobRequest.of(new WorkflowWorkerMain.BatchCallback("all"), queue));
      try (KilledWorkers workers =
          new KilledWorkers(db, schema, WORKERS, Duration.ofMillis(KILL_EVERY_MS))) {
        long t0 = System.nanoTime();
        long deadline = t0 + Duration.ofSeconds(100).toNanos();
        while (client.job(batch.callbackId()).orElseThrow().state() != JobState.COMPLETED) {
          if (System.nanoTime() > deadline) {
            throw new AssertionError(
                "the callback did not complete in time: it is "
                    + client.job(batch.callbackId()).orElseThrow().state().dbName());
          }
          workers.killIfDue();
          Thread.sleep(50);
        }
        System.out.printf(
            "batch: %d members (%d failing) across %d workers, %d SIGKILLs, callback done in %d ms%n",
            MEMBERS,
            failing,
            WORKERS,
            workers.kills(),
            Duration.ofNanos(System.nanoTime() - t0).toMillis());
        String s = "\"" + schema + "\"";
        assertThat(
                db.queryString(
                    "SELECT string_agg(deps_open::text, ',') FROM "
                        + s
                        + ".step_start WHERE job_id = "
                        + batch.callbackId()))
            .as("members not yet final when each attempt of the callback started")
            .matches("0(,0)*");
        // Failing members may be rescued (not failed) when their worker is killed, and then run
        // again on another: they are discarded only by their own failure, so all of them are.
        assertThat(db.queryString("SELECT string_agg(step, ',') FROM " + s + ".effect"))
            .as("the callback's effect, once, with the counts")
            .isEqualTo("callback:" + (MEMBERS - failing) + ":" + failing + ":0");
      }
    }
  }
}
