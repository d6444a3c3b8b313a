package dev.baton.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.Baton;
import dev.baton.dashboard.DashboardServer;
import dev.baton.spring.boot.shop.OrderService;
import dev.baton.spring.boot.shop.OrderService.Payment;
import dev.baton.spring.boot.shop.RestockCheck;
import dev.baton.spring.boot.shop.ShopRecord;
import dev.baton.testing.TestDatabase;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.env.Environment;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

/**
 * The starter in a running web application on real PostgreSQL: the transactional enqueue, a handler
 * bean, a periodic job bean, health and metrics, and the dashboard on its own port behind a token,
 * in one application context.
 */
@ShopWebTest
@TestPropertySource(
    properties = {
      "baton.migrate=true",
      "baton.queues.default.concurrency=4",
      "baton.metrics.refresh-interval=1s",
      "baton.dashboard.enabled=true",
      "baton.dashboard.port=0",
      "baton.dashboard.token=" + BatonStarterTest.DASHBOARD_TOKEN
    })
class BatonStarterTest {
  private static final TestDatabase DB = TestDatabase.get();
  private static final String SCHEMA = DB.newSchemaName();
  private static final Duration WAIT = Duration.ofSeconds(60);
  static final String DASHBOARD_TOKEN = "starter-test-dashboard-token";

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    ShopDatabase.register(registry, SCHEMA);
  }

  @Autowired OrderService orders;
  @Autowired ShopRecord record;
  @Autowired BatonTemplate baton;
  @Autowired Environment environment;
  @Autowired DashboardServer dashboard;

  @Test
  @Order(1)
  void rolledBackTransactionLeavesNoJob() {
    assertThatThrownBy(() -> orders.placeOrder("declined-customer", Payment.DECLINED))
        .hasMessageContaining("payment declined");

    assertThat(orders.ordersOf("declined-customer")).isZero();
    assertThat(confirmationJobsOf("declined-customer")).isZero();
  }

  @Test
  @Order(2)
  void committedTransactionRunsItsHandlerBean() {
    orders.placeOrder("happy-customer", Payment.ACCEPTED);

    await().atMost(WAIT).until(() -> record.wasConfirmed("happy-customer"));
    assertThat(orders.ordersOf("happy-customer")).isOne();
    assertThat(confirmationJobsOf("happy-customer")).isOne();
  }

  @Test
  @Order(2)
  void batchHandlerBeanWorksItsKind() {
    List<String> skus = List.of("sku-1", "sku-2", "sku-3");
    for (String sku : skus) {
      baton.enqueue(new RestockCheck(sku));
    }
    await().atMost(WAIT).until(() -> skus.stream().allMatch(record::wasChecked));
  }

  @Test
  @Order(3)
  void periodicJobBeanIsEnqueuedByTheLeaderAndRun() {
    await().atMost(WAIT).until(() -> record.ticks() >= 1);
  }

  @Test
  @Order(4)
  void healthIsUpWithSchemaVersionLeaderAndNode() throws Exception {
    Baton client = baton.baton();
    await().atMost(WAIT).until(() -> client.isLeader()); // the only node of a fresh schema leads

    Http.Response r = Http.get(environment, "/actuator/health");

    JsonNode health = r.body().path("components").path("baton");
    assertThat(health.path("status").asText()).as(r.body().toString()).isEqualTo("UP");
    assertThat(health.path("details").path("schema").asText()).isEqualTo(SCHEMA);
    assertThat(health.path("details").path("schemaVersion").asInt())
        .isEqualTo(dev.baton.migrate.Migrator.QUEUE_VERSION);
    assertThat(health.path("details").path("nodeId").asText()).isEqualTo(client.nodeId());
    assertThat(health.path("details").path("leader").asText()).isEqualTo(client.nodeId());
  }

  @Test
  @Order(5)
  void completedJobsAppearInActuatorMetrics() throws Exception {
    Http.Response r = Http.get(environment, "/actuator/metrics/baton.jobs.completed");

    assertThat(r.status()).as(r.body().toString()).isEqualTo(200);
    assertThat(r.body().path("measurements").get(0).path("value").asDouble())
        .isGreaterThanOrEqualTo(1.0);
  }

  @Test
  @Order(6)
  void dashboardOnItsOwnPortWantsTheToken() throws Exception {
    URI overview = dashboard.uri().resolve("overview");
    assertThat(dashboard.address().getAddress().isLoopbackAddress()).isTrue();
    assertThat(dashboard.address().getPort())
        .isNotEqualTo(environment.getRequiredProperty("local.server.port", Integer.class));

    assertThat(Http.status(overview, null)).isEqualTo(401);
    assertThat(Http.status(overview, "Bearer wrong-token-of-enough-length")).isEqualTo(401);
    assertThat(Http.status(overview, "Bearer " + DASHBOARD_TOKEN)).isEqualTo(200);
  }

  private static long confirmationJobsOf(String customer) {
    return DB.queryLong(
        "SELECT count(*) FROM "
            + SCHEMA
            + ".job WHERE kind = 'send_confirmation' AND args ->> 'customer' = '"
            + customer
            + "'");
  }
}
