package dev.baton.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.InvalidConfigException;
import dev.baton.dashboard.DashboardServer;
import dev.baton.spring.boot.shop.ShopApplication;
import dev.baton.testing.TestDatabase;
import java.net.URI;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.io.DefaultResourceLoader;

/**
 * The start-up rules of the starter's dashboard: at a path, an application without Spring Security
 * and without a {@code DashboardAuth} bean fails (nothing would authenticate, so every request
 * would be refused), as does a role given with Spring's {@code ROLE_} prefix (it would never
 * match); on its own port, a bind beyond loopback without authentication fails unless {@code
 * baton.dashboard.allow-anonymous=true}, and allowed origins must be origins. Each failure names
 * its property.
 */
@ExtendWith(OutputCaptureExtension.class)
class DashboardStartupRulesTest {
  private static final TestDatabase DB = TestDatabase.get();

  @Test
  void dashboardAtAPathWithoutSpringSecurityOrAnAuthBeanFailsStartup() {
    // The application as it would be without spring-boot-starter-security on its class path.
    DefaultResourceLoader withoutSpringSecurity =
        new DefaultResourceLoader(new FilteredClassLoader("org.springframework.security"));

    assertRejected(
        () ->
            new SpringApplicationBuilder(ShopApplication.class)
                .resourceLoader(withoutSpringSecurity)
                .web(WebApplicationType.SERVLET)
                .properties(database())
                .properties(
                    "server.port=0",
                    "baton.migrate=true",
                    "baton.dashboard.enabled=true",
                    "baton.dashboard.path=/baton")
                .run()
                .close(),
        "baton.dashboard.path");
  }

  @Test
  void roleWithTheRolePrefixFailsStartup() {
    assertRejected(
            () ->
                start(
                        WebApplicationType.SERVLET,
                        SecuredShop.class,
                        "server.port=0",
                        "baton.migrate=true",
                        "baton.dashboard.enabled=true",
                        "baton.dashboard.path=/baton",
                        "baton.dashboard.role=ROLE_BATON_ADMIN")
                    .close(),
            "baton.dashboard.role")
        .satisfies(
            e ->
                assertThat(((InvalidConfigException) rootCause(e)).received())
                    .isEqualTo("ROLE_BATON_ADMIN"));
  }

  @Test
  void ownPortBeyondLoopbackWithoutAuthenticationFailsStartupNamingAllowAnonymous(
      CapturedOutput output) {
    assertRejected(
        () ->
            start(
                    WebApplicationType.NONE,
                    ShopApplication.class,
                    "baton.migrate=true",
                    "baton.dashboard.enabled=true",
                    "baton.dashboard.port=0",
                    "baton.dashboard.bind=0.0.0.0")
                .close(),
        "baton.dashboard.bind");

    assertThat(output.getOut() + output.getErr())
        .contains("APPLICATION FAILED TO START")
        .contains("baton.dashboard.allow-anonymous=true");
  }

  @Test
  void ownPortBeyondLoopbackServesWhenAllowedAnonymousOrWithAToken() throws Exception {
    try (ConfigurableApplicationContext c =
        start(
            WebApplicationType.NONE,
            ShopApplication.class,
            "baton.migrate=true",
            "baton.dashboard.enabled=true",
            "baton.dashboard.port=0",
            "baton.dashboard.bind=0.0.0.0",
            "baton.dashboard.allow-anonymous=true")) {
      assertThat(Http.status(local(c), null)).isEqualTo(200);
    }
    try (ConfigurableApplicationContext c =
        start(
            WebApplicationType.NONE,
            ShopApplication.class,
            "baton.migrate=true",
            "baton.dashboard.enabled=true",
            "baton.dashboard.port=0",
            "baton.dashboard.bind=0.0.0.0",
            "baton.dashboard.token=a-token-of-sixteen-or-more")) {
      assertThat(Http.status(local(c), null)).isEqualTo(401);
      assertThat(Http.status(local(c), "Bearer a-token-of-sixteen-or-more")).isEqualTo(200);
    }
  }

  @Test
  void namedTokensLetEachInAndABadOneFailsStartupWithoutShowingIt() throws Exception {
    try (ConfigurableApplicationContext c =
        start(
            WebApplicationType.NONE,
            ShopApplication.class,
            "baton.migrate=true",
            "baton.dashboard.enabled=true",
            "baton.dashboard.port=0",
            "baton.dashboard.bind=0.0.0.0",
            "baton.dashboard.tokens.anna=anna-token-of-sixteen-or-more",
            "baton.dashboard.tokens.ci-bot=bot-token-of-sixteen-or-more")) {
      assertThat(Http.status(local(c), null)).isEqualTo(401);
      assertThat(Http.status(local(c), "Bearer anna-token-of-sixteen-or-more")).isEqualTo(200);
      assertThat(Http.status(local(c), "Bearer bot-token-of-sixteen-or-more")).isEqualTo(200);
    }
    assertRejected(
            () ->
                start(
                        WebApplicationType.NONE,
                        ShopApplication.class,
                        "baton.migrate=true",
                        "baton.dashboard.enabled=true",
                        "baton.dashboard.port=0",
                        "baton.dashboard.tokens.ops=too-short")
                    .close(),
            "baton.dashboard.tokens")
        .hasMessageContaining("token ops: expected at least 16 characters")
        .hasMessageNotContaining("too-short");
  }

  @Test
  void allowedOriginsThatAreNotOriginsFailStartup() {
    assertRejected(
        () ->
            start(
                    WebApplicationType.NONE,
                    ShopApplication.class,
                    "baton.migrate=true",
                    "baton.dashboard.enabled=true",
                    "baton.dashboard.port=0",
                    "baton.dashboard.allowed-origins=https://ops.example.com/baton")
                .close(),
        "baton.dashboard.allowed-origins");
  }

  private static URI local(ConfigurableApplicationContext c) {
    return URI.create(
        "http://127.0.0.1:" + c.getBean(DashboardServer.class).address().getPort() + "/overview");
  }

  private static AbstractThrowableAssert<?, ? extends Throwable> assertRejected(
      org.assertj.core.api.ThrowableAssert.ThrowingCallable start, String property) {
    return assertThatThrownBy(start)
        .satisfies(
            e -> {
              assertThat(rootCause(e)).isInstanceOf(InvalidConfigException.class);
              assertThat(((InvalidConfigException) rootCause(e)).property()).isEqualTo(property);
            });
  }

  private static Throwable rootCause(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t;
  }

  private static String[] database() {
    return new String[] {
      "spring.datasource.url=" + DB.jdbcUrl(), "baton.schema=" + DB.newSchemaName()
    };
  }

  private static ConfigurableApplicationContext start(
      WebApplicationType web, Class<?> application, String... properties) {
    return new SpringApplicationBuilder(application)
        .web(web)
        .properties(database())
        .properties(properties)
        .run();
  }
}
