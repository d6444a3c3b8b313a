package dev.baton.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.JobState;
import dev.baton.dashboard.DashboardServer;
import dev.baton.migrate.Migrator;
import dev.baton.spring.boot.shop.SendConfirmation;
import dev.baton.testing.TestDatabase;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

/**
 * An application that only enqueues ({@code baton.enabled=false}) on a schema nobody migrated: it
 * starts, reports {@code baton} DOWN with the reason, UP once the schema is migrated, and enqueues
 * without working the job. The dashboard, off by default, serves no port.
 */
@ShopWebTest
@TestPropertySource(properties = {"baton.enabled=false"})
class BatonHealthOnUnmigratedSchemaTest {
  private static final TestDatabase DB = TestDatabase.get();
  private static final String SCHEMA = DB.newSchemaName();

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    ShopDatabase.register(registry, SCHEMA);
  }

  @Autowired Environment environment;
  @Autowired BatonTemplate baton;
  @Autowired BatonLifecycle lifecycle;
  @Autowired ApplicationContext context;

  @Test
  @Order(1)
  void healthIsDownOnAnUnmigratedSchemaAndUpAfterMigration() throws Exception {
    Http.Response before = Http.get(environment, "/actuator/health");
    JsonNode down = before.body().path("components").path("baton");
    assertThat(before.status()).isEqualTo(503);
    assertThat(down.path("status").asText()).as(before.body().toString()).isEqualTo("DOWN");
    assertThat(down.path("details").path("reason").asText())
        .contains(SCHEMA)
        .contains("has no Baton tables")
        .contains("baton.migrate=true");
    assertThat(down.path("details").path("schemaVersion").asInt()).isZero();

    new Migrator(DB.admin(), SCHEMA).up();

    Http.Response after = Http.get(environment, "/actuator/health");
    assertThat(after.body().path("components").path("baton").path("status").asText())
        .as(after.body().toString())
        .isEqualTo("UP");
  }

  @Test
  @Order(2)
  void disabledApplicationEnqueuesButDoesNotWork() {
    new Migrator(DB.admin(), SCHEMA).up();

    long id = baton.enqueue(new SendConfirmation(1, "nobody-works-this")).id();

    assertThat(lifecycle.isRunning()).isFalse();
    assertThat(baton.baton().job(id).orElseThrow().state()).isEqualTo(JobState.AVAILABLE);
  }

  @Test
  @Order(3)
  void dashboardIsOffByDefault() {
    assertThat(context.getBeanNamesForType(DashboardServer.class)).isEmpty();
  }
}
