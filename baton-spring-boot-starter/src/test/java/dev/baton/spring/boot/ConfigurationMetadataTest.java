package dev.baton.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.metrics.BatonMetrics;
import dev.baton.spring.boot.ConfigSettings.Property;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.springframework.boot.convert.ApplicationConversionService;

/**
 * The configuration metadata built into the starter (what an IDE completes and documents) lists
 * every {@code baton.*} property of {@link BatonProperties} with a description, and, where Baton's
 * default is one constant, that default.
 */
class ConfigurationMetadataTest {
  private final Map<String, JsonNode> metadata = StarterProperties.metadata();

  /** Defaults that the starter's own nullable properties take from elsewhere. */
  private static final Map<String, Object> STARTER_OWN_DEFAULTS =
      Map.of("baton.metrics.refresh-interval", BatonMetrics.DEFAULT_REFRESH_INTERVAL);

  @Test
  void everyPropertyIsListedWithADescription() {
    for (String name : StarterProperties.declared()) {
      assertThat(metadata).as("metadata of %s", name).containsKey(name);
      String description = metadata.get(name).path("description").asText();
      assertThat(description).as("description of %s", name).isNotBlank();
      // the processor copies javadoc as it is; an IDE would show {@code ...} literally
      assertThat(description).as("description of %s", name).doesNotContain("{@");
    }
  }

  @Test
  void metadataNamesNoPropertyThatBatonPropertiesLacks() {
    Set<String> listed = new TreeSet<>(metadata.keySet());
    listed.removeIf(name -> !name.startsWith("baton."));

    assertThat(listed).isEqualTo(StarterProperties.declared());
  }

  @Test
  void constantDefaultsAreBatonsOwn() {
    ConfigSettings.properties()
        .forEach(
            p -> {
              JsonNode declared = metadata.get(p.declaredName());
              if (p.defaultValue() == null) {
                assertThat(declared.has("defaultValue"))
                    .as("%s has no one default, so the metadata states none", p)
                    .isFalse();
              } else {
                assertThat(defaultOf(declared, p.defaultValue().getClass()))
                    .as("default of %s in the metadata", p)
                    .isEqualTo(p.defaultValue());
              }
            });
    STARTER_OWN_DEFAULTS.forEach(
        (name, value) ->
            assertThat(defaultOf(metadata.get(name), value.getClass()))
                .as("default of %s in the metadata", name)
                .isEqualTo(value));
  }

  @Test
  void everySettingOfBatonConfigIsInTheMetadata() {
    for (Property p : ConfigSettings.properties().toList()) {
      assertThat(metadata).as("metadata of %s", p).containsKey(p.declaredName());
    }
  }

  static Object defaultOf(JsonNode property, Class<?> type) {
    JsonNode value = property.path("defaultValue");
    if (value.isMissingNode()) {
      return null;
    }
    return ApplicationConversionService.getSharedInstance().convert(value.asText(), type);
  }
}
