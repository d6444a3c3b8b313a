package dev.baton.examples.springboot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.test.BatonTestSchema;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The shop as its users run it, on real PostgreSQL over real HTTP, with its workers started (a
 * schema of its own from the test kit's {@code @BatonTestSchema}): one order placed through {@code
 * POST /orders} gets its confirmation email sent by the handler bean, Actuator reports Baton UP and
 * counts the completed job, and a bad order gets a 400 naming the field.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    // The workers run here, as in production; the kit's own default is drain by hand.
    properties = "baton.enabled=true")
@BatonTestSchema
@DirtiesContext
class ShopSmokeTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final ObjectMapper JSON = new ObjectMapper();

  @LocalServerPort int port;

  @Test
  void anOrderPlacedOverHttpGetsItsConfirmationEmail() throws Exception {
    HttpResponse<String> placed =
        post("/orders", "{\"customer\":\"Ada\",\"email\":\"ada@example.com\",\"totalCents\":4200}");
    assertThat(placed.statusCode()).as(placed.body()).isEqualTo(201);
    long orderId = JSON.readTree(placed.body()).path("orderId").asLong();

    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> get("/orders/" + orderId).path("emailed").asBoolean());

    JsonNode health = get("/actuator/health").path("components").path("baton");
    assertThat(health.path("status").asText()).as(health.toString()).isEqualTo("UP");
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                get("/actuator/metrics/baton.jobs.completed")
                        .path("measurements")
                        .path(0)
                        .path("value")
                        .asDouble()
                    >= 1);
  }

  @Test
  void aBadOrderGetsA400NamingTheField() throws Exception {
    HttpResponse<String> r =
        post("/orders", "{\"customer\":\"Ada\",\"email\":\"not-an-address\",\"totalCents\":1}");

    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body())
        .contains("email must be an address like ada@example.com, got \\\"not-an-address\\\"");
  }

  private HttpResponse<String> post(String path, String json) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private JsonNode get(String path) throws Exception {
    return JSON.readTree(
        HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString())
            .body());
  }
}
