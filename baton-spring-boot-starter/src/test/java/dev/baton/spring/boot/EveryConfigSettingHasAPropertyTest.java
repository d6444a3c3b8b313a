package dev.baton.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.spring.boot.ConfigSettings.Property;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Every {@link BatonConfig.Builder} setting has a {@code baton.*} property that the
 * auto-configuration applies: set to a value other than Baton's default, the property reaches the
 * {@code Baton} bean's config. A setting added to the builder without a property, or a property
 * whose mapping is missing, fails here.
 */
class EveryConfigSettingHasAPropertyTest {

  // The Baton bean is only built, never started, so the DataSource is never asked for a connection.
  private final ApplicationContextRunner contexts =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(BatonAutoConfiguration.class))
          .withBean(DataSource.class, PGSimpleDataSource::new)
          .withPropertyValues("baton.enabled=false");

  @Test
  void everyBuilderSettingIsListedWithItsProperties() {
    Set<String> listed =
        ConfigSettings.ALL.stream()
            .map(ConfigSettings.Setting::builderMethod)
            .collect(Collectors.toCollection(TreeSet::new));
    listed.addAll(ConfigSettings.NOT_PROPERTIES.keySet());

    assertThat(listed)
        .as("BatonConfig.Builder's settings; a new one needs a baton.* property (ConfigSettings)")
        .isEqualTo(ConfigSettings.builderMethods());
  }

  @Test
  void everyPropertyOfTheStarterThatIsNotItsOwnSetsASetting() {
    Set<String> declared = StarterProperties.declared();
    declared.removeIf(StarterProperties::isStarterOwn);

    assertThat(declared)
        .isEqualTo(
            ConfigSettings.properties()
                .map(Property::declaredName)
                .collect(Collectors.toCollection(TreeSet::new)));
  }

  static Stream<Property> properties() {
    return ConfigSettings.properties();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("properties")
  void propertyReachesTheBuiltConfig(Property property) {
    assertThat(property.carriesSample().test(BatonConfig.defaults()))
        .as("%s=%s must differ from Baton's default", property.name(), property.sample())
        .isFalse();

    contexts
        .withPropertyValues(property.samplePairs())
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              BatonConfig config = context.getBean(Baton.class).config();
              assertThat(property.carriesSample().test(config))
                  .as("%s=%s applied to the config", property.sampleKey(), property.sample())
                  .isTrue();
            });
  }
}
