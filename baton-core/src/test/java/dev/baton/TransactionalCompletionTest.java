package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testing.Fixture;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A handler that writes to the same database completes its job in its own transaction: its writes
 * and the completion commit together or not at all.
 */
class TransactionalCompletionTest {

  record Order(int n) implements JobArgs {}

  private static final RetryPolicy FAST_RETRY = (attempt, e) -> Duration.ofMillis(10);

  private static void insertEffect(Connection c, Fixture f, JobContext ctx) throws Exception {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO \"" + f.schema() + "\".effect (job_id, fence) VALUES (?, ?)")) {
      ps.setLong(1, ctx.jobId());
      ps.setLong(2, ctx.fence());
      ps.executeUpdate();
    }
  }

  @Test
  void handlerWritesAndCompletionCommitTogether() {
    try (Fixture f = new Fixture()) {
      f.execute("CREATE TABLE %s.effect (job_id bigint, fence bigint)");
      Baton baton =
          f.start(
              f.config().queue("default", 2).build(),
              b ->
                  b.handler(
                      Order.class,
                      (ctx, args) -> {
                        try (Connection c = f.dataSource().getConnection()) {
                          c.setAutoCommit(false);
                          insertEffect(c, f, ctx);
                          ctx.completeIn(c);
                          c.commit();
                        }
                      }));
      long id = baton.enqueue(new Order(1)).job().id();
      await().atMost(Duration.ofSeconds(10)).until(() -> f.job(id).state() == JobState.COMPLETED);
      assertThat(f.count("SELECT count(*) FROM %s.effect")).isEqualTo(1);
      assertThat(f.job(id).attempt()).isEqualTo(1);
      await().atMost(Duration.ofSeconds(5)).until(() -> baton.counters().completed() == 1);
    }
  }

  @Test
  void handlerWhoseTransactionRollsBackLeavesItsJobToBeRetried() {
    try (Fixture f = new Fixture()) {
      f.execute("CREATE TABLE %s.effect (job_id bigint, fence bigint)");
      Baton baton =
          f.start(
              f.config().queue("default", 2).retryPolicy(FAST_RETRY).build(),
              b ->
                  b.handler(
                      Order.class,
                      (ctx, args) -> {
                        try (Connection c = f.dataSource().getConnection()) {
                          c.setAutoCommit(false);
                          insertEffect(c, f, ctx);
                          ctx.completeIn(c);
                          if (ctx.attempt() == 1) {
                            c.rollback(); // e.g. a later check failed; the handler returns anyway
                          } else {
                            c.commit();
                          }
                        }
                      }));
      long id = baton.enqueue(new Order(1)).job().id();
      await().atMost(Duration.ofSeconds(10)).until(() -> f.job(id).state() == JobState.COMPLETED);
      Job job = f.job(id);
      assertThat(job.attempt()).isEqualTo(2);
      assertThat(job.errors())
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.attempt()).isEqualTo(1);
                assertThat(e.error()).isEqualTo("transaction_rolled_back");
              });
      // Only the committed attempt's write exists.
      assertThat(f.count("SELECT count(*) FROM %s.effect")).isEqualTo(1);
      assertThat(f.count("SELECT fence FROM %s.effect")).isEqualTo(job.fence());
    }
  }

  @Test
  void staleHoldersTransactionalCompletionRollsBackItsOwnWrites() throws Exception {
    try (Fixture f = new Fixture()) {
      f.execute("CREATE TABLE %s.effect (job_id bigint, fence bigint)");
      CountDownLatch started = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      AtomicReference<Throwable> staleError = new AtomicReference<>();
      Baton a =
          f.start(
              f.config()
                  .nodeId("A")
                  .queue("default", 1)
                  .lease(Duration.ofMinutes(2))
                  .maintenanceEnabled(false)
                  .build(),
              b ->
                  b.handler(
                      Order.class,
                      (ctx, args) -> {
                        started.countDown();
                        release.await(); // uninterrupted in this test: nobody cancels A
                        try (Connection c = f.dataSource().getConnection()) {
                          c.setAutoCommit(false);
                          try {
                            insertEffect(c, f, ctx);
                            ctx.completeIn(c);
                            c.commit();
                          } catch (LostBatonException e) {
                            staleError.set(e);
                            c.rollback();
                            throw e;
                          }
                        }
                      }));
      long id = a.enqueue(new Order(1)).job().id();
      assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
      f.execute(
          "UPDATE %s.job SET lease_expires_at = now() - interval '1 second' WHERE id = " + id);
      f.start(
          f.config().nodeId("B").queue("default", 1).build(),
          b ->
              b.handler(
                  Order.class,
                  (ctx, args) -> {
                    try (Connection c = f.dataSource().getConnection()) {
                      c.setAutoCommit(false);
                      insertEffect(c, f, ctx);
                      ctx.completeIn(c);
                      c.commit();
                    }
                  }));
      await().atMost(Duration.ofSeconds(15)).until(() -> f.job(id).state() == JobState.COMPLETED);
      long winner = f.job(id).fence();

      release.countDown();
      await().atMost(Duration.ofSeconds(10)).until(() -> a.counters().fenced() == 1);
      assertThat(staleError.get()).isInstanceOf(LostBatonException.class);
      assertThat(f.count("SELECT count(*) FROM %s.effect")).isEqualTo(1);
      assertThat(f.count("SELECT fence FROM %s.effect")).isEqualTo(winner);
      assertThat(f.job(id).state()).isEqualTo(JobState.COMPLETED);
      assertThat(f.job(id).fence()).isEqualTo(winner);
    }
  }
}
