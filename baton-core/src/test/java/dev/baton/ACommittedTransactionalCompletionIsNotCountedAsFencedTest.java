package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testing.Fixture;
import java.sql.Connection;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A handler that completed its job in its own committed transaction and then throws (closing a
 * client, a post-commit hook) has completed the job, and the node counts it as completed, not as a
 * stale holder's rejected write ("fenced"), which operators read as lost leases.
 */
class ACommittedTransactionalCompletionIsNotCountedAsFencedTest {

  record Order(int n) implements JobArgs {}

  @Test
  void committedTransactionalCompletionFollowedByAThrowIsNotCountedAsFenced() {
    try (Fixture f = new Fixture()) {
      Baton baton =
          f.start(
              f.config().queue("default", 2).build(),
              b ->
                  b.handler(
                      Order.class,
                      (ctx, a) -> {
                        try (Connection c = f.dataSource().getConnection()) {
                          c.setAutoCommit(false);
                          ctx.completeIn(c);
                          c.commit();
                        }
                        throw new IllegalStateException("post-commit cleanup failed");
                      }));
      long id = baton.enqueue(new Order(1)).job().id();
      await().atMost(Duration.ofSeconds(10)).until(() -> f.job(id).state() == JobState.COMPLETED);
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> baton.counters().fenced() + baton.counters().completed() > 0);
      assertThat(baton.counters().fenced()).as("fenced").isZero();
      assertThat(baton.counters().completed()).as("completed").isEqualTo(1);
    }
  }
}
