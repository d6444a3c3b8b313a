package dev.baton;

import static org.awaitility.Awaitility.await;

import dev.baton.testing.Fixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A benchmark, not a test: it prints figures and asserts no time. Drains, on one client with 16
 * workers and no-op handlers, {@value #JOBS} jobs without dependencies (enqueued with enqueueMany)
 * and {@value #JOBS} jobs as {@code JOBS / 4} diamond workflows (a -> b, a -> c, b + c -> d),
 * interleaved over {@value #ROUNDS} rounds, each in a fresh schema. The figures are in
 * docs/BENCHMARKS.md ("Workflows").
 */
class DiamondDrainBenchIT {
  static final int JOBS = 4_000;
  static final int ROUNDS = 3;

  record Noop(int n) implements JobArgs {}

  @Test
  void drainRatesOfPlainJobsAndOfDiamondSteps() {
    for (int round = 1; round <= ROUNDS; round++) {
      System.out.printf(
          "round %d: plain %.0f jobs/s, diamond steps %.0f jobs/s%n",
          round, drain(false), drain(true));
    }
  }

  private static double drain(boolean diamonds) {
    try (Fixture f = new Fixture(24)) {
      if (diamonds) {
        for (int i = 0; i < JOBS / 4; i++) {
          f.reader()
              .enqueueWorkflow(
                  Workflow.builder()
                      .step("a", new Noop(i))
                      .step("b", new Noop(i), "a")
                      .step("c", new Noop(i), "a")
                      .step("d", new Noop(i), "b", "c")
                      .build());
        }
      } else {
        List<JobRequest> jobs = new ArrayList<>();
        for (int i = 0; i < JOBS; i++) {
          jobs.add(JobRequest.of(new Noop(i)));
        }
        f.reader().enqueueMany(jobs);
      }
      long t0 = System.nanoTime();
      f.start(f.config().queue("default", 16).build(), b -> b.handler(Noop.class, (ctx, a) -> {}));
      await()
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofMillis(20))
          .until(() -> f.count("SELECT count(*) FROM %s.job WHERE state <> 'completed'") == 0);
      return JOBS / (Duration.ofNanos(System.nanoTime() - t0).toNanos() / 1e9);
    }
  }
}
