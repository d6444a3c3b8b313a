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

/** The start/stop contract of the client, under concurrent callers. */
class ClientStartStopTest {

  record Noop(int n) implements JobArgs {}

  @Test
  void startAndStopFromManyThreadsLeaveNoThreadBehind() throws Exception {
    // threads of clients that other tests left behind (an unclosed client that enqueued keeps its
    // baton-caps thread until it has been idle a while) are not this test's
    java.util.Set<Thread> before = Thread.getAllStackTraces().keySet();
    try (Fixture f = new Fixture(32)) {
      for (int round = 0; round < 5; round++) {
        Baton baton =
            Baton.builder(f.dataSource())
                .config(f.config().queue("default", 4).queue("other", 2).build())
                .handler(Noop.class, (ctx, a) -> {})
                .build();
        int threads = 8;
        CyclicBarrier barrier = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> futures = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
          int n = i;
          futures.add(
              pool.submit(
                  () -> {
                    barrier.await();
                    if (n % 2 == 0) {
                      baton.start();
                    } else {
                      baton.stop();
                    }
                    return null;
                  }));
        }
        for (Future<?> fu : futures) {
          try {
            fu.get();
          } catch (java.util.concurrent.ExecutionException e) {
            // A start after a stop is refused; nothing else may fail.
            assertThat(e.getCause()).isInstanceOf(IllegalStateException.class);
          }
        }
        pool.shutdown();
        baton.stop();
        baton.stop();
      }
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(10))
          .untilAsserted(
              () ->
                  assertThat(
                          Thread.getAllStackTraces().keySet().stream()
                              .filter(t -> t.isAlive() && t.getName().startsWith("baton-"))
                              .filter(t -> !before.contains(t))
                              .map(Thread::getName))
                      .isEmpty());
    }
  }
}
