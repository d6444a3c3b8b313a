package dev.baton.examples.springboot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.test.BatonTestSchema;
import dev.baton.test.JobOutcome;
import dev.baton.test.Outcome;
import dev.baton.test.TestBaton;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The test kit's Spring recipe (docs/testing.md): {@code @BatonTestSchema} gives the class a schema
 * of its own and a client that is not started, so the test drains the email queue by hand.
 */
// docs:begin spring-testing
@SpringBootTest
@BatonTestSchema
class OrderEmailTest {
  @Autowired OrderService orders;
  @Autowired Baton baton;
  @Autowired DataSource dataSource;
  @Autowired JdbcTemplate jdbc;

  @Test
  void aPlacedOrderGetsOneEmailWhenTheQueueIsDrained() {
    OrderService.PlacedOrder placed =
        orders.place(new OrderService.NewOrder("Ada", "ada@example.com", 4200));
    TestBaton jobs = TestBaton.of(baton, dataSource);
    jobs.assertEnqueued(SendOrderEmail.class, e -> e.orderId() == placed.orderId());

    List<JobOutcome> runs = jobs.drain("email");

    assertThat(runs).extracting(JobOutcome::outcome).containsExactly(Outcome.COMPLETED);
    assertThat(
            jdbc.queryForObject(
                "SELECT count(*) FROM shop.sent_emails WHERE order_id = ?",
                Long.class,
                placed.orderId()))
        .isEqualTo(1);
  }
}
// docs:end spring-testing
