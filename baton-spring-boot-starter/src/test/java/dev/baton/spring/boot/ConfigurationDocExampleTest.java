package dev.baton.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.testing.TestDatabase;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * docs/configuration.md's customizer example, quoted there verbatim between the docs markers below
 * (DocSnippetsAreCompiledTest), in a real application context: it changes one setting and keeps the
 * ones the properties made.
 */
class ConfigurationDocExampleTest {
  private static final TestDatabase DB = TestDatabase.get();

  @Configuration(proxyBeanMethods = false)
  static class Customizers {
    // docs:begin customizer
    @Bean
    BatonBuilderCustomizer fewerRescues() {
      return builder -> builder.config(builder.config().toBuilder().maxRescues(5).build());
    }
    // docs:end customizer
  }

  @Test
  void theCustomizerChangesOneSettingAndKeepsTheProperties() {
    String schema = DB.newMigratedSchema();
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(BatonAutoConfiguration.class))
        .withBean(DataSource.class, () -> DB.dataSource(2))
        .withUserConfiguration(Customizers.class)
        .withPropertyValues("baton.enabled=false", "baton.schema=" + schema, "baton.max-rescues=9")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              Baton baton = context.getBean(Baton.class);
              assertThat(baton.config().maxRescues()).isEqualTo(5);
              assertThat(baton.config().schema()).isEqualTo(schema);
            });
  }
}
