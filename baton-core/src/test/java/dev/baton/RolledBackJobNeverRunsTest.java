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
 * Invariant 2: a job rolled back with its business transaction never runs; one committed with it
 * does.
 */
class RolledBackJobNeverRunsTest {

  record Email(String order) implements JobArgs {}

  @Test
  void jobEnqueuedInARolledBackTransactionNeverRunsAndACommittedOneDoes() throws Exception {
    try (Fixture f = new Fixture()) {
      f.execute("CREATE TABLE %s.orders (name text)");
      List<String> sent = new CopyOnWriteArrayList<>();
      Baton baton =
          f.start(
              f.config().queue("default", 4).build(),
              b -> b.handler(Email.class, (ctx, args) -> sent.add(args.order())));

      for (String order : List.of("rolled-back-1", "committed", "rolled-back-2")) {
        try (Connection c = f.dataSource().getConnection()) {
          c.setAutoCommit(false);
          try (PreparedStatement ps =
              c.prepareStatement("INSERT INTO \"" + f.schema() + "\".orders VALUES (?)")) {
            ps.setString(1, order);
            ps.executeUpdate();
          }
          EnqueueResult r = baton.enqueue(c, new Email(order));
          assertThat(r.job().state()).isEqualTo(JobState.AVAILABLE);
          if (order.startsWith("rolled-back")) {
            c.rollback();
          } else {
            c.commit();
          }
        }
      }
      // A later job in the same queue completes, so the workers have had every chance to run the
      // rolled-back ones.
      long later = baton.enqueue(new Email("later")).job().id();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> f.job(later).state() == JobState.COMPLETED);
      await().atMost(Duration.ofSeconds(10)).until(() -> sent.contains("committed"));

      assertThat(sent).containsExactlyInAnyOrder("committed", "later");
      assertThat(f.count("SELECT count(*) FROM %s.job")).isEqualTo(2);
      assertThat(f.count("SELECT count(*) FROM %s.orders")).isEqualTo(1);
    }
  }
}
