package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testing.Fixture;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Whatever a handler did before it threw (completed its job in its own transaction or not), the
 * attempt is recorded with what it threw: class, message and stack trace; a commit that fails after
 * {@code completeIn} is recorded as the commit's exception; the retry policy is called with it.
 * Text PostgreSQL cannot store is escaped visibly, and an exception whose message cannot be read is
 * recorded under its own class.
 */
class AFailedAttemptRecordsItsRealCauseTest {

  record Order(int n) implements JobArgs {}

  /** Records every cause the retry policy is called with; retries at once. */
  private static final class SeenCauses implements RetryPolicy {
    final List<Throwable> causes = new CopyOnWriteArrayList<>();

    @Override
    public Duration nextDelay(int attempt, Throwable error) {
      causes.add(error);
      return Duration.ofMillis(10);
    }
  }

  private static void insert(Fixture f, Connection c, int n) throws Exception {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO \"" + f.schema() + "\".effect (n) VALUES (?)")) {
      ps.setInt(1, n);
      ps.executeUpdate();
    }
  }

  @Test
  void aHandlerThatCompletesInItsTransactionThenThrowsIsRecordedWithWhatItThrew() {
    try (Fixture f = new Fixture()) {
      f.execute("CREATE TABLE %s.effect (n int)");
      SeenCauses policy = new SeenCauses();
      Baton baton =
          f.start(
              f.config().queue("default", 1).retryPolicy(policy).build(),
              b ->
                  b.handler(
                      Order.class,
                      (ctx, args) -> {
                        try (Connection c = f.dataSource().getConnection()) {
                          c.setAutoCommit(false);
                          insert(f, c, 1);
                          ctx.completeIn(c);
                          if (ctx.attempt() == 1) {
                            c.rollback();
                            throw new IllegalStateException("the stock check failed for order 1");
                          }
                          c.commit();
                        }
                      }));
      long id = baton.enqueue(new Order(1)).job().id();
      await().atMost(Duration.ofSeconds(10)).until(() -> f.job(id).state() == JobState.COMPLETED);
      JobError e = f.job(id).errors().get(0);
      assertThat(e.error()).isEqualTo(IllegalStateException.class.getName());
      assertThat(e.message()).isEqualTo("the stock check failed for order 1");
      assertThat(e.trace())
          .startsWith("java.lang.IllegalStateException: the stock check failed for order 1")
          .contains("at dev.baton.AFailedAttemptRecordsItsRealCauseTest");
      assertThat(policy.causes)
          .singleElement()
          .satisfies(
              t ->
                  assertThat(t)
                      .isInstanceOf(IllegalStateException.class)
                      .hasMessage("the stock check failed for order 1"));
      assertThat(f.count("SELECT count(*) FROM %s.effect")).isEqualTo(1);
    }
  }

  @Test
  void aCommitThatFailsAfterCompleteInIsRecordedAsTheCommitsException() {
    try (Fixture f = new Fixture()) {
      // A deferred constraint is checked at commit: the handler's statements all succeed.
      f.execute("CREATE TABLE %s.effect (n int UNIQUE DEFERRABLE INITIALLY DEFERRED)");
      f.execute("INSERT INTO %s.effect (n) VALUES (1)");
      SeenCauses policy = new SeenCauses();
      Baton baton =
          f.start(
              f.config().queue("default", 1).retryPolicy(policy).build(),
              b ->
                  b.handler(
                      Order.class,
                      (ctx, args) -> {
                        try (Connection c = f.dataSource().getConnection()) {
                          c.setAutoCommit(false);
                          insert(f, c, ctx.attempt()); // 1 clashes at commit, 2 does not
                          ctx.completeIn(c);
                          c.commit();
                        }
                      }));
      long id = baton.enqueue(new Order(1)).job().id();
      await().atMost(Duration.ofSeconds(10)).until(() -> f.job(id).state() == JobState.COMPLETED);
      Job job = f.job(id);
      assertThat(job.attempt()).isEqualTo(2);
      JobError e = job.errors().get(0);
      assertThat(e.error()).isEqualTo("org.postgresql.util.PSQLException");
      assertThat(e.message()).contains("duplicate key value violates unique constraint");
      assertThat(e.trace())
          .startsWith("org.postgresql.util.PSQLException")
          .contains("at dev.baton.AFailedAttemptRecordsItsRealCauseTest");
      assertThat(policy.causes)
          .singleElement()
          .isInstanceOf(java.sql.SQLException.class)
          .satisfies(t -> assertThat(((java.sql.SQLException) t).getSQLState()).isEqualTo("23505"));
    }
  }

  @Test
  void aHandlerThatReturnsAfterItsTransactionRolledBackGivesThePolicyACauseNotNull() {
    try (Fixture f = new Fixture()) {
      f.execute("CREATE TABLE %s.effect (n int)");
      SeenCauses policy = new SeenCauses();
      Baton baton =
          f.start(
              f.config().queue("default", 1).retryPolicy(policy).build(),
              b ->
                  b.handler(
                      Order.class,
                      (ctx, args) -> {
                        try (Connection c = f.dataSource().getConnection()) {
                          c.setAutoCommit(false);
                          insert(f, c, 1);
                          ctx.completeIn(c);
                          if (ctx.attempt() == 1) {
                            c.rollback(); // and returns: nothing was thrown
                          } else {
                            c.commit();
                          }
                        }
                      }));
      long id = baton.enqueue(new Order(1)).job().id();
      await().atMost(Duration.ofSeconds(10)).until(() -> f.job(id).state() == JobState.COMPLETED);
      assertThat(f.job(id).errors().get(0).error()).isEqualTo("transaction_rolled_back");
      assertThat(policy.causes)
          .singleElement()
          .satisfies(
              t ->
                  assertThat(t)
                      .isInstanceOf(BatonException.class)
                      .hasMessageContaining("that transaction did not commit"));
    }
  }

  @Test
  void aNulAndALoneSurrogateInAnErrorAreEscapedVisibly() {
    try (Fixture f = new Fixture()) {
      Baton baton =
          f.start(
              f.config().queue("default", 1).retryPolicy((a, e) -> Duration.ofHours(1)).build(),
              b ->
                  b.handler(
                      Order.class,
                      (ctx, args) -> {
                        throw new IllegalStateException("byte \u0000 then half \uD800 pair");
                      }));
      long id = baton.enqueue(new Order(1)).job().id();
      await().atMost(Duration.ofSeconds(10)).until(() -> f.job(id).state() == JobState.RETRYABLE);
      JobError e = f.job(id).errors().get(0);
      assertThat(e.message()).isEqualTo("byte \\u0000 then half \\uD800 pair");
      assertThat(e.trace()).contains("byte \\u0000 then half \\uD800 pair");
    }
  }

  /** An exception whose message cannot be read. */
  static final class Unreadable extends RuntimeException {
    @Override
    public String getMessage() {
      throw new UnsupportedOperationException("no message today");
    }
  }

  @Test
  void anExceptionWhoseMessageCannotBeReadIsRecordedUnderItsOwnClass() {
    try (Fixture f = new Fixture()) {
      SeenCauses policy = new SeenCauses();
      Baton baton =
          f.start(
              f.config().queue("default", 1).retryPolicy(policy).build(),
              b ->
                  b.handler(
                      Order.class,
                      (ctx, args) -> {
                        throw new Unreadable();
                      }));
      long id =
          baton.enqueue(new Order(1), EnqueueOptions.builder().maxAttempts(1).build()).job().id();
      await().atMost(Duration.ofSeconds(10)).until(() -> f.job(id).state() == JobState.DISCARDED);
      JobError e = f.job(id).errors().get(0);
      assertThat(e.error()).isEqualTo(Unreadable.class.getName());
      assertThat(e.message())
          .contains("its message could not be read")
          .contains("java.lang.UnsupportedOperationException: no message today");
      assertThat(e.trace())
          .startsWith(Unreadable.class.getName())
          .contains("at dev.baton.AFailedAttemptRecordsItsRealCauseTest");
    }
  }
}
