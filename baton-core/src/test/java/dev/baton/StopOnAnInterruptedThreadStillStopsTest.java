package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.testing.Fixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code stop()} called on a thread whose interrupt flag is set (a cancelled task, a framework's
 * shutdown thread) stops the client all the same: "Returns when stopped".
 */
class StopOnAnInterruptedThreadStillStopsTest {

  record Ping(int n) implements JobArgs {}

  @Test
  void stopOnAnInterruptedThreadStillStopsEveryComponent() throws Exception {
    try (Fixture f = new Fixture()) {
      HikariDataSource pool = f.db().dataSource(8);
      Baton baton = null;
      try {
        baton =
            Baton.builder(pool)
                .config(f.config().queue("a", 1).queue("b", 1).queue("c", 1).build())
                .handler(Ping.class, (ctx, p) -> {})
                .build();
        baton.start();
        Thread.currentThread().interrupt();
        baton.stop();
        assertThat(Thread.interrupted()).as("stop() keeps the interrupt flag").isTrue();

        // Nothing of the client may work after stop() returned: no claims...
        List<Long> ids = new ArrayList<>();
        for (String q : List.of("a", "b", "c")) {
          ids.add(
              f.reader()
                  .enqueue(new Ping(1), EnqueueOptions.builder().queue(q).build())
                  .job()
                  .id());
        }
        // ...and no connection held (the notifier's LISTEN connection goes back to the pool).
        try {
          await()
              .during(Duration.ofSeconds(1))
              .atMost(Duration.ofSeconds(3))
              .untilAsserted(
                  () -> {
                    for (long id : ids) {
                      assertThat(f.job(id).state()).as("job %d", id).isEqualTo(JobState.AVAILABLE);
                    }
                  });
        } finally {
          System.err.println(
              "connections still borrowed by the stopped client: "
                  + pool.getHikariPoolMXBean().getActiveConnections()
                  + "; live baton threads: "
                  + Thread.getAllStackTraces().keySet().stream()
                      .map(Thread::getName)
                      .filter(n -> n.startsWith("baton-"))
                      .sorted()
                      .toList());
        }
        assertThat(pool.getHikariPoolMXBean().getActiveConnections()).isZero();
        f.reader().stop(); // the enqueuing client's baton-caps thread is not the stopped client's
        await()
            .atMost(Duration.ofSeconds(10))
            .untilAsserted(
                () ->
                    assertThat(
                            Thread.getAllStackTraces().keySet().stream()
                                .filter(t -> t.isAlive() && t.getName().startsWith("baton-"))
                                .map(Thread::getName))
                        .as("live baton threads after stop()")
                        .isEmpty());
      } finally {
        if (baton != null) {
          baton.stop();
        }
        pool.close();
      }
    }
  }
}
