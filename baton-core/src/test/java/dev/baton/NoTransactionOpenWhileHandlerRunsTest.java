package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.testing.Fixture;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Invariant 7: no transaction stays open while a handler runs. While 16 handlers are blocked,
 * pg_stat_activity shows no connection of the client's pool idle in a transaction, or holding a
 * transaction at all.
 */
class NoTransactionOpenWhileHandlerRunsTest {

  record Block(int n) implements JobArgs {}

  // Only "idle in transaction" counts. A LISTEN connection that receives a notification while idle
  // reads the queue in a short internal transaction whose xact_start is its last statement's start
  // (seen: state 'idle', xact_start 2.3 s old, query LISTEN), so "idle with an xact_start" is not
  // a transaction anyone holds.
  private static final String OPEN_TRANSACTIONS =
      "SELECT count(*) FROM pg_stat_activity WHERE application_name = '%s'"
          + " AND state LIKE 'idle in transaction%%'";
  private static final String CONNECTIONS =
      "SELECT count(*) FROM pg_stat_activity WHERE application_name = '%s'";

  @Test
  void noClientConnectionIsIdleInTransactionWhileHandlersRun() throws Exception {
    String app = "baton-inv7-" + ProcessHandle.current().pid();
    try (Fixture f = new Fixture();
        HikariDataSource clientPool = f.db().dataSource(24, app)) {
      CountDownLatch allStarted = new CountDownLatch(16);
      CountDownLatch release = new CountDownLatch(1);
      Baton client =
          Baton.builder(clientPool)
              .config(f.config().queue("default", 16).build())
              .handler(
                  Block.class,
                  (ctx, args) -> {
                    allStarted.countDown();
                    release.await();
                  })
              .build();
      try {
        client.start();
        for (int i = 0; i < 40; i++) {
          client.enqueue(new Block(i));
        }
        assertThat(allStarted.await(20, TimeUnit.SECONDS)).isTrue();

        // The probe sees the pool's connections (the LISTEN one at least)...
        assertThat(f.db().queryLong(CONNECTIONS.formatted(app))).isPositive();
        // ...and none of them holds a transaction, sampled while heartbeats and polls go on.
        long deadline = System.nanoTime() + Duration.ofSeconds(2).toNanos();
        int samples = 0;
        while (System.nanoTime() < deadline) {
          long open = f.db().queryLong(OPEN_TRANSACTIONS.formatted(app));
          if (open != 0) {
            String who =
                f.db()
                    .queryString(
                        "SELECT string_agg(state || ' since ' || coalesce((now() - xact_start)::text, '-') || ': '"
                            + " || query, E'\\n') FROM pg_stat_activity WHERE application_name = '"
                            + app
                            + "'");
            assertThat(open)
                .as("connections of the client's pool in a transaction while handlers run:\n" + who)
                .isZero();
          }
          samples++;
        }
        assertThat(samples).isGreaterThan(10);

        // The probe does catch an open transaction on that pool (so the check above can fail).
        try (Connection c = clientPool.getConnection()) {
          c.setAutoCommit(false);
          try (Statement st = c.createStatement()) {
            st.execute("SELECT 1");
          }
          assertThat(f.db().queryLong(OPEN_TRANSACTIONS.formatted(app))).isEqualTo(1);
          c.rollback();
        }
      } finally {
        release.countDown();
        client.stop();
      }
    }
  }
}
