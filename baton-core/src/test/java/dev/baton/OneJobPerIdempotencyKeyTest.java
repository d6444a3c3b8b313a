package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testing.Fixture;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Invariant 6: concurrent enqueues with one idempotency key create one job. */
class OneJobPerIdempotencyKeyTest {

  record Charge(int n) implements JobArgs {}

  @Test
  void fiftyConcurrentEnqueuesOfOneKeyCreateOneJob() throws Exception {
    int threads = 50;
    try (Fixture f = new Fixture(threads + 5)) {
      Baton baton = f.reader();
      CyclicBarrier barrier = new CyclicBarrier(threads);
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      List<Future<EnqueueResult>> results = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        int n = i;
        results.add(
            pool.submit(
                () -> {
                  barrier.await();
                  return baton.enqueue(
                      new Charge(n), EnqueueOptions.builder().idempotencyKey("order-42").build());
                }));
      }
      List<EnqueueResult> done = new ArrayList<>();
      for (Future<EnqueueResult> r : results) {
        done.add(r.get());
      }
      pool.shutdown();

      assertThat(f.count("SELECT count(*) FROM %s.job")).isEqualTo(1);
      assertThat(done.stream().filter(r -> !r.existing())).hasSize(1);
      assertThat(done.stream().filter(EnqueueResult::existing)).hasSize(threads - 1);
      long id = done.get(0).job().id();
      assertThat(done)
          .allSatisfy(
              r -> {
                assertThat(r.job().id()).isEqualTo(id);
                assertThat(r.job().idempotencyKey()).isEqualTo("order-42");
              });
      // The existing job is returned as stored: its args are the first inserter's.
      EnqueueResult winner = done.stream().filter(r -> !r.existing()).findFirst().orElseThrow();
      assertThat(done).allSatisfy(r -> assertThat(r.job().args()).isEqualTo(winner.job().args()));
    }
  }

  @Test
  void bulkEnqueueReturnsExistingJobsForRepeatedKeys() {
    try (Fixture f = new Fixture()) {
      Baton baton = f.reader();
      long first = baton.enqueue(new Charge(0), key("a")).job().id();
      EnqueueManyResult r =
          baton.enqueueMany(
              List.of(
                  JobRequest.of(new Charge(1), key("a")),
                  JobRequest.of(new Charge(2), key("b")),
                  JobRequest.of(new Charge(3)),
                  JobRequest.of(new Charge(4), key("b"))));
      assertThat(r.existing()).containsExactly(true, false, false, true);
      assertThat(r.jobIds()[0]).isEqualTo(first);
      assertThat(r.jobIds()[3]).isEqualTo(r.jobIds()[1]);
      assertThat(r.insertedCount()).isEqualTo(2);
      assertThat(f.count("SELECT count(*) FROM %s.job")).isEqualTo(3);
      assertThat(f.job(r.jobIds()[2]).args().path("n").asInt()).isEqualTo(3);
    }
  }

  private static EnqueueOptions key(String k) {
    return EnqueueOptions.builder().idempotencyKey(k).build();
  }
}
