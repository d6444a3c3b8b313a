package dev.baton.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.spring.boot.shop.OrderService;
import dev.baton.spring.boot.shop.ShopApplication;
import dev.baton.test.BatonTestSchema;
import dev.baton.test.Outcome;
import dev.baton.test.TestBaton;
import dev.baton.test.TestDatabase;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The Testcontainers variant of the recipe: the database's JDBC URL comes from outside the kit (a
 * container's {@code getJdbcUrl()} in a {@code @DynamicPropertySource}); {@code
 * Database.APPLICATION} makes the class's schema on that database. No Docker here: the "container"
 * is the test server's URL, given the way a container's would be.
 */
@SpringBootTest(classes = ShopApplication.class)
@BatonTestSchema(database = BatonTestSchema.Database.APPLICATION)
@DirtiesContext
class ExternalDatabaseRecipeTest {
  /** Stands in for {@code postgres.getJdbcUrl()} of a Testcontainers container. */
  private static final String EXTERNAL_URL = TestDatabase.get().jdbcUrl() + "&ApplicationName=ext";

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    registry.add("spring.datasource.url", () -> EXTERNAL_URL);
  }

  @Autowired OrderService orders;
  @Autowired Baton baton;
  @Autowired DataSource dataSource;
  @Autowired Environment environment;

  @Test
  void theSchemaIsMadeOnTheGivenDatabaseAndTheTestDrainsByHand() throws Exception {
    assertThat(environment.getProperty("spring.datasource.url")).isEqualTo(EXTERNAL_URL);
    assertThat(baton.config().schema()).startsWith("baton_test_");

    orders.placeOrder("grace", OrderService.Payment.ACCEPTED);

    assertThat(TestBaton.of(baton, dataSource).drain("default"))
        .extracting(j -> j.outcome())
        .containsExactly(Outcome.COMPLETED);
  }
}
