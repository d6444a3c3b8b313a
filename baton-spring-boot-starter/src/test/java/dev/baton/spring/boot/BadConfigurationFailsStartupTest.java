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

  private static void start(Class<?> application, String... properties) {
    new SpringApplicationBuilder(application)
        .web(WebApplicationType.NONE)
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
