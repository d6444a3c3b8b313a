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
 * What docs/dashboard.md says of an application that does not leave the dashboard's path out of
 * Spring Security's CSRF filter: its pages show, and Spring Security refuses every action, even one
 * with the dashboard's own token, before the dashboard sees it.
 */
@SpringBootTest(
    classes = SecuredShop.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "baton.migrate=true",
      "baton.queues.default.concurrency=1",
      "baton.dashboard.enabled=true",
      "baton.dashboard.path=/baton",
      "secured-shop.spring-csrf-on-dashboard=true"
    })
@DirtiesContext
class SpringCsrfOnDashboardPathTest {
  private static final TestDatabase DB = TestDatabase.get();
  private static final String SCHEMA = DB.newSchemaName();
  private static final HttpClient CLIENT = HttpClient.newHttpClient();
  private static final Pattern CSRF_COOKIE = Pattern.compile("baton_csrf=([A-Za-z0-9_-]+)");

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    ShopDatabase.register(registry, SCHEMA);
  }

  @Autowired Environment environment;
  @Autowired Baton baton;

  @Test
  void pagesShowAndSpringSecurityRefusesActions() throws Exception {
    String admin = SecuredShop.basic(SecuredShop.ADMIN);
    HttpResponse<String> page =
        CLIENT.send(
            HttpRequest.newBuilder(uri("/baton/")).header("Authorization", admin).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(page.statusCode()).isEqualTo(200);
    Matcher m = CSRF_COOKIE.matcher(page.headers().firstValue("Set-Cookie").orElse(""));
    assertThat(m.find()).isTrue();

    HttpResponse<String> pause =
        CLIENT.send(
            HttpRequest.newBuilder(uri("/baton/queues/default/pause"))
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", admin)
                .header("Cookie", "baton_csrf=" + m.group(1))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("csrf=" + m.group(1)))
                .build(),
            HttpResponse.BodyHandlers.ofString());

    // 403, or 401 where the application's error page itself wants a login, as here.
    assertThat(pause.statusCode()).isIn(401, 403);
    assertThat(pause.body()).doesNotContain("CSRF token");
    assertThat(baton.queues())
        .filteredOn(q -> q.name().equals("default"))
        .noneMatch(QueueInfo::paused);
  }

  private URI uri(String path) {
    return URI.create(
        "http://127.0.0.1:" + environment.getRequiredProperty("local.server.port") + path);
  }
}
