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
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The security bean of docs/dashboard.md, as written there: Spring Security lets only role {@code
 * BATON_ADMIN} reach {@code /baton/**} and leaves CSRF on that path to the dashboard, so an
 * administrator's action with the dashboard's own token goes through.
 */
@SpringBootTest(
    classes = DashboardBehindSpringSecurityTest.DocumentedChain.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "baton.migrate=true",
      "baton.queues.default.concurrency=1",
      "baton.dashboard.enabled=true",
      "baton.dashboard.path=/baton"
    })
@DirtiesContext
class DashboardBehindSpringSecurityTest {
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
  void onlyTheRoleReachesTheDashboardAndItsActionsPassSpringSecurity() throws Exception {
    assertThat(Http.status(uri("/baton/"), null)).isEqualTo(401);
    assertThat(Http.status(uri("/baton/"), SecuredShop.basic(SecuredShop.CLERK))).isEqualTo(403);

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
                .header("Origin", "http://127.0.0.1:" + port())
                .POST(HttpRequest.BodyPublishers.ofString("csrf=" + m.group(1)))
                .build(),
            HttpResponse.BodyHandlers.ofString());

    assertThat(pause.statusCode()).isIn(200, 303);
    assertThat(baton.queues())
        .filteredOn(q -> q.name().equals("default"))
        .allMatch(QueueInfo::paused);
  }

  private String port() {
    return environment.getRequiredProperty("local.server.port");
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + port() + path);
  }

  /** An application whose security is the bean of docs/dashboard.md. */
  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class DocumentedChain {
    // docs:begin spring-security
    @Bean
    SecurityFilterChain security(HttpSecurity http) throws Exception {
      return http.authorizeHttpRequests(
              a ->
                  a.requestMatchers("/baton/**")
                      .hasRole("BATON_ADMIN")
                      .anyRequest()
                      .authenticated())
          .httpBasic(Customizer.withDefaults()) // or formLogin, oauth2Login...
          .csrf(c -> c.ignoringRequestMatchers("/baton/**")) // the dashboard checks its own token
          .build();
    }

    // docs:end spring-security

    @Bean
    UserDetailsService users() {
      return new InMemoryUserDetailsManager(
          User.withUsername(SecuredShop.ADMIN)
              .password("{noop}" + SecuredShop.PASSWORD)
              .roles("BATON_ADMIN")
              .build(),
          User.withUsername(SecuredShop.CLERK)
              .password("{noop}" + SecuredShop.PASSWORD)
              .roles("CLERK")
              .build());
    }
  }
}
