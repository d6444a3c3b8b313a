package dev.baton.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.QueueInfo;
import dev.baton.testing.TestDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The dashboard at {@code baton.dashboard.path} on the application's own Tomcat, behind Spring
 * Security with the default role: who may use it, its pages and assets under the path, and its CSRF
 * check on an action, over real HTTP and real PostgreSQL.
 */
@SpringBootTest(
    classes = SecuredShop.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "baton.migrate=true",
      "baton.queues.default.concurrency=1",
      "baton.dashboard.enabled=true",
      "baton.dashboard.path=/baton"
    })
@DirtiesContext
class DashboardOnAppPortTest {
  private static final TestDatabase DB = TestDatabase.get();
  private static final String SCHEMA = DB.newSchemaName();
  private static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private static final Pattern CSRF_COOKIE = Pattern.compile("baton_csrf=([A-Za-z0-9_-]+)");

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    ShopDatabase.register(registry, SCHEMA);
  }

  @Autowired Environment environment;
  @Autowired Baton baton;

  @Test
  void requestWithoutCredentialsIsUnauthorized() throws Exception {
    HttpResponse<String> r = get("/baton/", null);

    assertThat(r.statusCode()).isEqualTo(401);
    // The 401 page's own style loads; nothing else does.
    assertThat(get("/baton/assets/dashboard.css", null).statusCode()).isEqualTo(200);
    assertThat(get("/baton/jobs", null).statusCode()).isEqualTo(401);
  }

  @Test
  void userWithoutTheRoleIsForbidden() throws Exception {
    HttpResponse<String> r = get("/baton/", SecuredShop.basic(SecuredShop.CLERK));

    assertThat(r.statusCode()).isEqualTo(403);
    assertThat(r.body()).contains("may not use the dashboard");
    assertThat(get("/baton/api/", SecuredShop.basic(SecuredShop.CLERK)).statusCode())
        .isEqualTo(403);
  }

  @Test
  void userInTheRoleSeesTheOverviewWithAssetsUnderThePath() throws Exception {
    String admin = SecuredShop.basic(SecuredShop.ADMIN);
    HttpResponse<String> r = get("/baton/", admin);

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body())
        .contains("href=\"/baton/assets/dashboard.css\"")
        .contains("src=\"/baton/assets/dashboard.js\"")
        .contains("href=\"/baton/jobs\"");
    assertThat(r.headers().firstValue("Set-Cookie")).get().asString().contains("Path=/baton;");
    HttpResponse<String> css = get("/baton/assets/dashboard.css", admin);
    assertThat(css.statusCode()).isEqualTo(200);
    assertThat(css.headers().firstValue("Content-Type")).get().asString().startsWith("text/css");
    assertThat(get("/baton/jobs?limit=x", admin).statusCode()).isEqualTo(400);
    assertThat(get("/baton/no-such-page", admin).statusCode()).isEqualTo(404);
  }

  @Test
  void actionWithTheCsrfTokenPausesTheQueueAndOneWithoutIsRefused() throws Exception {
    String admin = SecuredShop.basic(SecuredShop.ADMIN);
    String token = csrfToken(admin);

    HttpResponse<String> refused = post("/baton/queues/default/pause", admin, token, null);
    assertThat(refused.statusCode()).isEqualTo(403);
    assertThat(refused.body()).contains("CSRF token");
    HttpResponse<String> wrong = post("/baton/queues/default/pause", admin, token, "x" + token);
    assertThat(wrong.statusCode()).isEqualTo(403);
    assertThat(paused()).isFalse();

    HttpResponse<String> done = post("/baton/queues/default/pause", admin, token, token);
    assertThat(done.statusCode()).isEqualTo(303);
    assertThat(done.headers().firstValue("Location"))
        .get()
        .asString()
        .startsWith("/baton/?done=paused&queue=default");
    assertThat(paused()).isTrue();
    assertThat(get("/baton/", admin).body()).contains("action=\"/baton/queues/default/resume\"");

    assertThat(post("/baton/queues/default/resume", admin, token, token).statusCode())
        .isEqualTo(303);
    assertThat(paused()).isFalse();
  }

  private boolean paused() {
    return baton.queues().stream()
        .filter(q -> q.name().equals("default"))
        .map(QueueInfo::paused)
        .findFirst()
        .orElse(false);
  }

  private String csrfToken(String authorization) throws Exception {
    HttpResponse<String> page = get("/baton/", authorization);
    Matcher m = CSRF_COOKIE.matcher(page.headers().firstValue("Set-Cookie").orElse(""));
    assertThat(m.find()).as("the dashboard's CSRF cookie").isTrue();
    return m.group(1);
  }

  private HttpResponse<String> get(String path, String authorization) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30));
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /**
   * A form POST with the CSRF cookie {@code cookie} and form field {@code field} (none if null).
   */
  private HttpResponse<String> post(String path, String authorization, String cookie, String field)
      throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(uri(path))
            .timeout(Duration.ofSeconds(30))
            .header("Authorization", authorization)
            .header("Cookie", "baton_csrf=" + cookie)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(field == null ? "" : "csrf=" + field))
            .build();
    return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
  }

  private URI uri(String path) {
    return URI.create(
        "http://127.0.0.1:" + environment.getRequiredProperty("local.server.port") + path);
  }
}
