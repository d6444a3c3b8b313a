package dev.baton.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.testing.Fixture;
import java.net.InetSocketAddress;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Named bearer tokens: each request is let in by one of the tokens and its actions are recorded
 * with that token's name, from a script (the header) and from a browser that signed in (the
 * cookie); a token is never echoed back, and a bad name or token is refused naming the name only.
 */
class DashboardNamedTokensTest {
  private static final String ANNA = "anna-0123456789abcdef";
  private static final String BOT = "ci-bot-fedcba9876543210";

  private static Fixture f;
  private static DashboardServer server;

  @BeforeAll
  static void serve() {
    f = new Fixture();
    server =
        Dashboard.builder(f.reader(), f.dataSource())
            .auth(DashboardAuth.bearerTokens(Map.of("anna", ANNA, "ci-bot", BOT)))
            .build()
            .serve(new InetSocketAddress("127.0.0.1", 0));
  }

  @AfterAll
  static void close() {
    server.close();
    f.close();
  }

  private static String pausedBy(String queue) {
    return f.db()
        .queryString("SELECT paused_by FROM " + f.schema() + ".queue WHERE name = '" + queue + "'");
  }

  @Test
  void eachTokensActionsAreRecordedWithItsName() throws Exception {
    WebClient bot = new WebClient(server.uri(), "Authorization", "Bearer " + BOT);
    WebClient anna = new WebClient(server.uri(), "Authorization", "bearer " + ANNA);

    assertThat(bot.post("/api/queues/named-bot/pause").statusCode()).isEqualTo(200);
    assertThat(anna.post("/api/queues/named-anna/pause").statusCode()).isEqualTo(200);
    long job = Seed.discarded(f, "named-bot", "{}");
    assertThat(bot.post("/api/jobs/" + job + "/retry").statusCode()).isEqualTo(200);

    assertThat(pausedBy("named-bot")).isEqualTo("ci-bot");
    assertThat(pausedBy("named-anna")).isEqualTo("anna");
    assertThat(f.job(job).metadata().path("retried_by").asText()).isEqualTo("ci-bot");
    String overview = anna.get("/").body() + anna.get("/api/overview").body();
    assertThat(overview).contains("by ci-bot").doesNotContain(ANNA, BOT);

    assertThat(new WebClient(server.uri(), "Authorization", "Bearer " + BOT + "x").get("/"))
        .extracting(HttpResponse::statusCode)
        .isEqualTo(401);
  }

  @Test
  void aBrowserSignedInWithATokenActsUnderItsName() throws Exception {
    WebClient browser = new WebClient(server.uri());
    String origin = "http://" + server.uri().getAuthority();
    HttpResponse<String> signedIn =
        browser.send(
            HttpRequest.newBuilder(server.uri().resolve("/sign-in"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Origin", origin)
                .POST(HttpRequest.BodyPublishers.ofString("token=" + ANNA + "&next=/")));
    assertThat(signedIn.statusCode()).isEqualTo(303);
    Matcher m =
        Pattern.compile("^([^;]+)")
            .matcher(signedIn.headers().firstValue("Set-Cookie").orElseThrow());
    assertThat(m.find()).isTrue();
    String csrf = new WebClient(server.uri(), "Cookie", m.group(1)).token();

    HttpResponse<String> paused =
        browser.send(
            HttpRequest.newBuilder(server.uri().resolve("/api/queues/named-browser/pause"))
                .header("Cookie", m.group(1) + "; baton_csrf=" + csrf)
                .header("X-Baton-Csrf", csrf)
                .header("Origin", origin)
                .POST(HttpRequest.BodyPublishers.noBody()));
    assertThat(paused.statusCode()).isEqualTo(200);
    assertThat(pausedBy("named-browser")).isEqualTo("anna");
  }

  @Test
  void aBadNameOrTokenIsRefusedNamingTheNameNeverTheToken() {
    assertThatThrownBy(() -> DashboardAuth.bearerTokens(Map.of("ops", "short-secret")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("token ops: expected at least 16 characters, got 12")
        .hasMessageNotContaining("short-secret");
    assertThatThrownBy(() -> DashboardAuth.bearerTokens(Map.of("a b", ANNA)))
        .hasMessageContaining("invalid dashboard token name")
        .hasMessageNotContaining(ANNA);
    assertThatThrownBy(() -> DashboardAuth.bearerTokens(Map.of("a", ANNA, "b", ANNA)))
        .hasMessageContaining("the same token is given another name too")
        .hasMessageNotContaining(ANNA);
    assertThatThrownBy(() -> DashboardAuth.bearerTokens(Map.of()))
        .hasMessageContaining("expected at least one");
  }
}
