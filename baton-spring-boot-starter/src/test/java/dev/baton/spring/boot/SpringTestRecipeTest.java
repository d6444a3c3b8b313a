package dev.baton.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.spring.boot.shop.OrderService;
import dev.baton.spring.boot.shop.SendConfirmation;
import dev.baton.spring.boot.shop.ShopApplication;
import dev.baton.spring.boot.shop.ShopRecord;
import dev.baton.test.BatonTestSchema;
import dev.baton.test.JobOutcome;
import dev.baton.test.Outcome;
import dev.baton.test.TestBaton;
import dev.baton.test.TestDatabase;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The test kit's Spring recipe as docs/testing.md gives it: {@code @BatonTestSchema} on a
 * {@code @SpringBootTest} gives the class a migrated schema of its own on the test server and a
 * client that is not started, so the test drains by hand with no property to set.
 */
@SpringBootTest(classes = ShopApplication.class)
@BatonTestSchema
@DirtiesContext
class SpringTestRecipeTest {
  @Autowired OrderService orders;
  @Autowired ShopRecord record;
  @Autowired Baton baton;
  @Autowired DataSource dataSource;
  @Autowired Environment environment;

  @Test
  void aSpringBootTestDrainsByHandWithoutAProperty() {
    long id = orders.placeOrder("ada", OrderService.Payment.ACCEPTED);
    TestBaton jobs = TestBaton.of(baton, dataSource);
    jobs.assertEnqueued(SendConfirmation.class, c -> c.orderId() == id);

    List<JobOutcome> runs = jobs.drain("default");

    assertThat(runs).extracting(JobOutcome::outcome).containsExactly(Outcome.COMPLETED);
    assertThat(record.wasConfirmed("ada")).isTrue();
  }

  @Test
  void theClassHasASchemaOfItsOwnOnTheTestServer() {
    assertThat(baton.config().schema()).startsWith("baton_test_");
    assertThat(environment.getProperty("spring.datasource.url"))
        .isEqualTo(TestDatabase.get().jdbcUrl());
  }
}
