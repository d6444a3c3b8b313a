package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testing.Fixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Without {@link BatonConfig.Builder#prefetch(int)}, how far a queue claims ahead adapts: it grows
 * while handlers return faster than a claim round trip and the queue has a backlog, and stays near
 * zero for jobs that run long, so that nodes sharing a queue each run their share. A claim's jobs
 * share one {@code attempted_at} (the statement's {@code now()}), which is how these tests see the
 * size of each claim without timing anything.
 */
class AdaptivePrefetchTest {

  record Noop(int n) implements JobArgs {}

  record Nap(int n) implements JobArgs {}

  private static final String LARGEST_CLAIM =
      "SELECT max(n) FROM (SELECT count(*) AS n FROM %s.job GROUP BY attempted_by, attempted_at) c";

  @Test
  void aBacklogOfNoOpJobsIsClaimedInBatchesFarLargerThanTheConcurrency() {
    int concurrency = 4;
    int jobs = 20_000;
    try (Fixture f = new Fixture()) {
      enqueue(f, jobs, Noop::new);
      f.start(
          f.config().queue("default", concurrency).maintenanceEnabled(false).build(),
          b -> b.handler(Noop.class, (ctx, a) -> {}));
      await()
          .atMost(Duration.ofMinutes(2))
          .until(() -> f.count("SELECT count(*) FROM %s.job WHERE state = 'completed'") == jobs);
      // A depth fixed at the concurrency claims at most 4 free slots plus 4 ahead at a time.
      assertThat(f.count(LARGEST_CLAIM)).isGreaterThanOrEqualTo(16L * concurrency);
      assertThat(f.count("SELECT count(*) FROM %s.job WHERE attempt <> 1")).isZero();
    }
  }

  @Test
  void longJobsOnThreeNodesSpreadEvenly() {
    int concurrency = 4;
    int jobs = 36; // a fair share: 12 per node, three rounds of 200 ms
    try (Fixture f = new Fixture()) {
      List<Baton> nodes = new ArrayList<>();
      for (String node : List.of("node-a", "node-b", "node-c")) {
        nodes.add(startNode(f, node, concurrency));
      }
      // One bulk enqueue wakes all three at once. Each claims its free slots; one that also
      // claimed ahead for handlers that have not returned (or ran 200 ms each) would take, in one
      // statement, the jobs the other two then find missing.
      enqueue(f, jobs, Nap::new);
      await()
          .atMost(Duration.ofMinutes(2))
          .until(() -> f.count("SELECT count(*) FROM %s.job WHERE state = 'completed'") == jobs);
      for (String node : List.of("node-a", "node-b", "node-c")) {
        assertThat(f.count("SELECT count(*) FROM %s.job WHERE attempted_by = '" + node + "'"))
            .as("jobs run by %s", node)
            .isBetween(6L, 18L);
      }
      // No job was claimed twice: none was handed back from a buffer or rescued.
      assertThat(f.count("SELECT count(*) FROM %s.job WHERE attempt <> 1")).isZero();
      for (Baton node : nodes) {
        assertThat(node.counters().handedBack()).isZero();
      }
    }
  }

  private static Baton startNode(Fixture f, String nodeId, int concurrency) {
    return f.startOnOwnPool(
        6,
        f.config().nodeId(nodeId).queue("default", concurrency).maintenanceEnabled(false).build(),
        b -> b.handler(Nap.class, (ctx, a) -> Thread.sleep(200)));
  }

  private static void enqueue(Fixture f, int jobs, java.util.function.IntFunction<JobArgs> args) {
    List<JobRequest> requests = new ArrayList<>(jobs);
    for (int i = 0; i < jobs; i++) {
      requests.add(JobRequest.of(args.apply(i)));
    }
    f.reader().enqueueMany(requests);
  }
}
