package dev.baton.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpPrincipal;
import dev.baton.dashboard.DashboardAuth;
import dev.baton.dashboard.DashboardServer;
import dev.baton.testing.TestDatabase;
import java.net.URI;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * An application's {@link DashboardAuth} bean replaces the auth of the {@code baton.dashboard.*}
 * properties: at {@code baton.dashboard.path} (the role), and on the dashboard's own port (the
 * token).
 */
@SpringBootTest(
    classes = {SecuredShop.class, DashboardAuthBeanTest.OnlyClerks.class},
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "baton.migrate=true",
      "baton.queues.default.concurrency=1",
      "baton.dashboard.enabled=true",
      "baton.dashboard.path=/baton"
    })
@DirtiesContext
class DashboardAuthBeanTest {
  private static final TestDatabase DB = TestDatabase.get();
  private static final String SCHEMA = DB.newSchemaName();
  private static final String PROPERTY_TOKEN = "token-of-the-properties";
  private static final String BEAN_TOKEN = "token-of-the-application-bean";

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    ShopDatabase.register(registry, SCHEMA);
  }

  @Autowired Environment environment;

  @Test
  void authBeanReplacesTheRoleAtThePath() throws Exception {
    URI overview = URI.create("http://127.0.0.1:" + port() + "/baton/");

    assertThat(Http.status(overview, SecuredShop.basic(SecuredShop.ADMIN))).isEqualTo(403);
    assertThat(Http.status(overview, SecuredShop.basic(SecuredShop.CLERK))).isEqualTo(200);
    assertThat(Http.status(overview, null)).isEqualTo(401);
  }

  @Test
  void authBeanReplacesTheTokenOnTheOwnPort() throws Exception {
    try (ConfigurableApplicationContext context =
        new SpringApplicationBuilder(OwnPortWithTokenBean.class)
            .web(WebApplicationType.NONE)
            .properties(
                "spring.datasource.url=" + DB.jdbcUrl(),
                "baton.schema=" + SCHEMA,
                "baton.dashboard.enabled=true",
                "baton.dashboard.port=0",
                "baton.dashboard.token=" + PROPERTY_TOKEN)
            .run()) {
      URI overview = context.getBean(DashboardServer.class).uri().resolve("overview");

      assertThat(Http.status(overview, "Bearer " + PROPERTY_TOKEN)).isEqualTo(401);
      assertThat(Http.status(overview, "Bearer " + BEAN_TOKEN)).isEqualTo(200);
    }
  }

  private String port() {
    return environment.getRequiredProperty("local.server.port");
  }

  /** Lets in the clerk, whatever the role says, and nobody else. */
  @Configuration(proxyBeanMethods = false)
  static class OnlyClerks {
    @Bean
    DashboardAuth onlyClerks() {
      return new DashboardAuth() {
        @Override
        public boolean allows(HttpExchange exchange) {
          return exchange.getPrincipal() != null;
        }

        @Override
        public boolean authorizes(HttpExchange exchange) {
          HttpPrincipal p = exchange.getPrincipal();
          return p.getUsername().equals(SecuredShop.CLERK);
        }

        @Override
        public String challenge() {
          return "";
        }
      };
    }
  }

  /** An application without a web server whose dashboard, on its own port, takes its token. */
  @Configuration(proxyBeanMethods = false)
  @org.springframework.boot.autoconfigure.EnableAutoConfiguration
  static class OwnPortWithTokenBean {
    @Bean
    DashboardAuth tokenAuth() {
      return DashboardAuth.bearerToken(BEAN_TOKEN);
    }
  }
}
