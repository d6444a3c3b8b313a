package dev.baton.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.JobHandler;
import dev.baton.spring.boot.shop.ShopApplication;
import dev.baton.testing.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Start-up fails with Boot's failure analysis naming what is wrong: a rejected {@code baton.*}
 * property (which one, what it must be, what was given), a handler bean whose args type cannot be
 * read, and a schema nobody migrated (with how to migrate it).
 */
@ExtendWith(OutputCaptureExtension.class)
class BadConfigurationFailsStartupTest {
  private static final TestDatabase DB = TestDatabase.get();

  @Test
  void badPropertyFailsStartupNamingPropertyExpectedAndGiven(CapturedOutput output) {
    assertThatThrownBy(() -> start(ShopApplication.class, "baton.lease=100ms"))
        .hasRootCauseInstanceOf(dev.baton.InvalidConfigException.class);

    assertThat(output.getOut() + output.getErr())
        .contains("APPLICATION FAILED TO START")
        .contains("Baton rejected baton.lease: expected between PT0.5S and PT1H, given \"100ms\"")
        .contains("Set baton.lease to between PT0.5S and PT1H");
  }

  @Test
  void handlerWithoutAResolvableArgsTypeFailsStartup(CapturedOutput output) {
    assertThatThrownBy(() -> start(RawHandler.class))
        .hasRootCauseInstanceOf(dev.baton.InvalidConfigException.class);

    assertThat(output.getOut() + output.getErr())
        .contains("APPLICATION FAILED TO START")
        .contains("Baton rejected JobHandler bean \"rawHandler\"")
        .contains("a handler whose args type can be resolved");
  }

  @Test
  void unmigratedSchemaFailsStartupSayingHowToMigrate(CapturedOutput output) {
    assertThatThrownBy(() -> start(ShopApplication.class))
        .hasRootCauseInstanceOf(dev.baton.SchemaNotMigratedException.class);

    assertThat(output.getOut() + output.getErr())
        .contains("APPLICATION FAILED TO START")
        .contains("is not ready")
        .contains("Set baton.migrate=true to migrate schema");
  }

  @Test
  void schemaMigratedByANewerBatonFailsStartupSayingWhatToDeploy(CapturedOutput output) {
    String schema = DB.newMigratedSchema();
    DB.execute(
        "INSERT INTO "
            + schema
            + ".migration (line, version, name) VALUES ('queue', 999, 'from a newer build')");

    assertThatThrownBy(
            () -> start(ShopApplication.class, "baton.schema=" + schema, "baton.migrate=true"))
        .hasRootCauseInstanceOf(dev.baton.SchemaTooNewException.class);

    assertThat(output.getOut() + output.getErr())
        .contains("APPLICATION FAILED TO START")
        .contains("is at version 999, newer than this library knows")
        .contains("Deploy a build with Baton's schema version 999 or later");
  }

  @Test
  void dashboardPathWithItsOwnTokenFailsStartupNamingTheToken(CapturedOutput output) {
    assertThatThrownBy(
            () ->
                start(
                    WebApplicationType.SERVLET,
                    SecuredShop.class,
                    "server.port=0",
                    "baton.migrate=true",
                    "baton.dashboard.enabled=true",
                    "baton.dashboard.path=/baton",
                    "baton.dashboard.token=a-token-for-the-own-port"))
        .hasRootCauseInstanceOf(dev.baton.InvalidConfigException.class);

    assertThat(output.getOut() + output.getErr())
        .contains("Baton rejected baton.dashboard.token: expected unset when baton.dashboard.path")
        .doesNotContain("a-token-for-the-own-port");
  }

  @Test
  void malformedDashboardPathFailsStartupNamingIt(CapturedOutput output) {
    assertThatThrownBy(
            () ->
                start(
                    WebApplicationType.SERVLET,
                    SecuredShop.class,
                    "server.port=0",
                    "baton.migrate=true",
                    "baton.dashboard.enabled=true",
                    "baton.dashboard.path=/baton/*"))
        .hasRootCauseInstanceOf(dev.baton.InvalidConfigException.class);

    assertThat(output.getOut() + output.getErr())
        .contains("Baton rejected baton.dashboard.path: expected a path such as /baton")
        .contains("given \"/baton/*\"");
  }

  @Test
  void dashboardPathWithoutServletServerFailsStartupNamingIt(CapturedOutput output) {
    assertThatThrownBy(
            () ->
                start(
                    ShopApplication.class,
                    "baton.migrate=true",
                    "baton.dashboard.enabled=true",
                    "baton.dashboard.path=/baton"))
        .hasRootCauseInstanceOf(dev.baton.InvalidConfigException.class);

    assertThat(output.getOut() + output.getErr())
        .contains("Baton rejected baton.dashboard.path: expected a servlet web application");
  }

  private static void start(Class<?> application, String... properties) {
    start(WebApplicationType.NONE, application, properties);
  }

  private static void start(WebApplicationType web, Class<?> application, String... properties) {
    new SpringApplicationBuilder(application)
        .web(web)
        .properties("spring.datasource.url=" + DB.jdbcUrl(), "baton.schema=" + DB.newSchemaName())
        .properties(properties)
        .run()
        .close();
  }

  /** An application whose only handler is declared raw, so its args type is unknown. */
  @Configuration(proxyBeanMethods = false)
  @org.springframework.boot.autoconfigure.EnableAutoConfiguration
  static class RawHandler {
    @Bean
    @SuppressWarnings("rawtypes")
    JobHandler rawHandler() {
      return (ctx, args) -> {};
    }
  }
}
