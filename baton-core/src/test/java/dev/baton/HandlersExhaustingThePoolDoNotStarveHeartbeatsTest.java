package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.testing.TestDatabase;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Invariant 5's "and no sooner", under pool exhaustion: handlers that take every connection of
 * their node's pool must not stop the node's heartbeats. If they did, the leases would run out
 * while the handlers still work, another node would rescue and re-run the jobs, and each effect
 * would happen twice. The heartbeater keeps a connection of its own for the client's life.
 *
 * <p>Node A: a pool of 4 (the notifier holds one), queue concurrency 3, handlers that each hold a
 * connection from A's pool for four leases. Node B, on its own pool, leads and works the same
 * queue, ready to rescue. Every job must run once, on A, with no lease lost.
 */
class HandlersExhaustingThePoolDoNotStarveHeartbeatsTest {
  private static final Duration LEASE = Duration.ofMillis(1_500);

  record Hold(int n) implements JobArgs {}

  /**
   * A handler that takes a connection from {@code pool} (the effect) and holds it for four leases.
   * One that gets no connection within the pool's timeout fails, and its job is retried.
   */
  private static JobHandler<Hold> holdOn(
      javax.sql.DataSource pool, Map<Long, AtomicInteger> effects) {
    return (ctx, args) -> {
      try (Connection c = pool.getConnection()) {
        effects.computeIfAbsent(ctx.jobId(), id -> new AtomicInteger()).incrementAndGet();
        c.createStatement().execute("SELECT pg_sleep(" + LEASE.toMillis() * 4 / 1000.0 + ")");
      }
    };
  }

  @Test
  void leasesSurviveHandlersThatHoldEveryConnection() throws Exception {
    TestDatabase db = TestDatabase.get();
    String schema = db.newMigratedSchema();
    Map<Long, AtomicInteger> effects = new ConcurrentHashMap<>();

    HikariConfig small = new HikariConfig();
    small.setJdbcUrl(db.jdbcUrl());
    small.setMaximumPoolSize(4);
    small.setMinimumIdle(0);
    small.setConnectionTimeout(2_000);
    small.setPoolName("exhausted-A");
    try (HikariDataSource poolA = new HikariDataSource(small);
        HikariDataSource poolB = db.dataSource(8)) {
      BatonConfig.Builder common =
          BatonConfig.builder()
              .schema(schema)
              .queue("hold", 3)
              .lease(LEASE)
              .heartbeatInterval(Duration.ofMillis(300))
              .pollInterval(Duration.ofMillis(100))
              .maintenanceInterval(Duration.ofMillis(100))
              .stopTimeout(Duration.ofSeconds(10));
      try (Baton a =
              Baton.builder(poolA)
                  .config(common.nodeId("A").maintenanceEnabled(false).build())
                  .handler(Hold.class, holdOn(poolA, effects))
                  .build();
          Baton b =
              Baton.builder(poolB)
                  .config(
                      BatonConfig.builder()
                          .schema(schema)
                          .nodeId("B")
                          .queue("hold", 3)
                          .lease(LEASE)
                          .pollInterval(Duration.ofMillis(100))
                          .maintenanceInterval(Duration.ofMillis(100))
                          .build())
                  .handler(Hold.class, holdOn(poolB, effects))
                  .build()) {
        // Enqueued before A starts: once A's handlers hold every connection of its pool, an
        // enqueue through that pool would wait for one.
        for (int i = 0; i < 3; i++) {
          a.enqueue(new Hold(i), EnqueueOptions.builder().queue("hold").build());
        }
        a.start();
        // B starts once A holds all three, so only a rescue could give B a job.
        await().atMost(Duration.ofSeconds(10)).until(() -> a.counters().claimed() == 3);
        b.start();

        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () ->
                    db.queryLong(
                            "SELECT count(*) FROM " + schema + ".job WHERE state = 'completed'")
                        == 3);
        assertThat(a.counters().leasesLost()).as("leases A lost").isZero();
        assertThat(b.counters().rescued()).as("jobs B rescued").isZero();
        assertThat(effects).hasSize(3);
        assertThat(effects.values())
            .as("effects per job (a handler that got no connection made none)")
            .allSatisfy(n -> assertThat(n).hasValue(1));
      }
    }
  }
}
