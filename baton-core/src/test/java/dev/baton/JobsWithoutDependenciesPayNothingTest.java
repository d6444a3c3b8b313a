package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testing.Fixture;
import dev.baton.testing.PlanRecorder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * "A capability costs nothing where it is not used": a client that claims and completes jobs
 * without dependencies runs no statement of the dependencies (no read or write of {@code
 * job_dependency}, no release), in plain completions, completions folded into a claim, failures and
 * transactional completions alike; the same client does run the release for a workflow step. Every
 * statement the client sends is recorded (PlanRecorder); maintenance is off, so only the hot path
 * speaks.
 */
class JobsWithoutDependenciesPayNothingTest {

  record Plain(int n) implements JobArgs {}

  @Test
  void claimingAndFinishingJobsWithoutDependenciesRunsNoDependencyStatement() {
    try (Fixture f = new Fixture()) {
      PlanRecorder recorder = new PlanRecorder(f.dataSource());
      Baton client =
          Baton.builder(recorder.dataSource())
              .config(f.config().queue("default", 4).maintenanceEnabled(false).build())
              .handler(
                  Plain.class,
                  (ctx, p) -> {
                    if (p.n() % 5 == 1) {
                      throw new IllegalStateException("a failed attempt");
                    }
                    if (p.n() % 5 == 2) {
                      try (var c = f.dataSource().getConnection()) {
                        c.setAutoCommit(false);
                        ctx.completeIn(c);
                        c.commit();
                      }
                    }
                  })
              .build();
      try (client) {
        List<JobRequest> jobs = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
          jobs.add(JobRequest.of(new Plain(i), EnqueueOptions.builder().maxAttempts(1).build()));
        }
        f.reader().enqueueMany(jobs);
        client.start();
        await()
            .atMost(Duration.ofSeconds(20))
            .until(() -> f.count("SELECT count(*) FROM %s.job WHERE finalized_at IS NULL") == 0);
        Set<String> plain = statements(recorder);
        assertThat(plain)
            .as("statements of claims and finishes of jobs without dependencies")
            .isNotEmpty()
            .noneMatch(sql -> sql.contains("job_dependency"));

        // The same client, a workflow: its finish releases the dependent, by the release statement.
        recorder.clear();
        EnqueuedWorkflow wf =
            f.reader()
                .enqueueWorkflow(
                    Workflow.builder()
                        .step("first", new Plain(100))
                        .step("then", new Plain(200), "first")
                        .build());
        await()
            .atMost(Duration.ofSeconds(20))
            .until(() -> f.job(wf.id("then")).state() == JobState.COMPLETED);
        assertThat(statements(recorder)).anyMatch(sql -> sql.contains("job_dependency"));
      }
    }
  }

  private static Set<String> statements(PlanRecorder recorder) {
    Set<String> out = new TreeSet<>();
    for (PlanRecorder.Plan p : recorder.plans()) {
      out.add(p.sql());
    }
    return out;
  }
}
