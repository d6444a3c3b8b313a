package dev.baton.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.spring.boot.ConfigSettings.Property;
import dev.baton.spring.boot.ConfigSettings.Setting;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.boot.convert.ApplicationConversionService;

/**
 * docs/configuration.md, the configuration reference, is in step with {@code BatonConfig} and the
 * starter: its settings table has one row per builder setting, with the setting's {@code baton.*}
 * properties and, where Baton's default is one constant, that default; its table of the starter's
 * own properties has every other property the starter's metadata lists, with the metadata's
 * default; and neither names anything that does not exist.
 */
class ConfigurationReferenceTest {
  // The working directory is the module's, here or in the Boot 4 test module beside it.
  private static final Path PAGE = Path.of("..", "docs", "configuration.md");
  private static final Pattern CODE = Pattern.compile("`([^`]+)`");

  /** One table row: its cells, each as written. */
  private record Row(List<String> cells) {
    String cell(int i) {
      return cells.get(i);
    }
  }

  @Test
  void settingsTableHasEveryBuilderSettingWithItsPropertiesAndDefault() throws IOException {
    Map<String, Row> rows = new LinkedHashMap<>();
    for (Row row : table("## Settings")) {
      String method = codeSpans(row.cell(0)).get(0).replaceAll("\\(.*", "");
      assertThat(rows.put(method, row)).as("rows of %s", method).isNull();
    }

    assertThat(new TreeSet<>(rows.keySet()))
        .as("settings in %s", PAGE)
        .isEqualTo(
            ConfigSettings.ALL.stream()
                .map(Setting::builderMethod)
                .collect(Collectors.toCollection(TreeSet::new)));

    for (Setting setting : ConfigSettings.ALL) {
      Row row = rows.get(setting.builderMethod());
      assertThat(codeSpans(row.cell(1)))
          .as("properties of %s", setting.builderMethod())
          .isEqualTo(setting.properties().stream().map(Property::name).toList());
      assertThat(row.cell(2)).as("default of %s", setting.builderMethod()).isNotBlank();

      List<Property> constants =
          setting.properties().stream().filter(p -> p.defaultValue() != null).toList();
      if (constants.isEmpty()) {
        continue; // a default in words: "a third of the lease", "adaptive"
      }
      List<String> written = codeSpans(row.cell(2));
      assertThat(written).as("defaults of %s", setting.builderMethod()).hasSize(constants.size());
      for (int i = 0; i < constants.size(); i++) {
        Property p = constants.get(i);
        assertThat(convert(written.get(i), p.defaultValue().getClass()))
            .as("default of %s in %s", p, PAGE)
            .isEqualTo(p.defaultValue());
      }
    }
  }

  @Test
  void starterTableHasEveryOtherPropertyWithTheMetadatasDefault() throws IOException {
    Map<String, JsonNode> metadata = StarterProperties.metadata();
    Set<String> others = new TreeSet<>(metadata.keySet());
    ConfigSettings.properties().map(Property::declaredName).forEach(others::remove);

    Map<String, Row> rows = new LinkedHashMap<>();
    for (Row row : table("## Properties of the starter alone")) {
      String property = codeSpans(row.cell(0)).get(0);
      assertThat(rows.put(property, row)).as("rows of %s", property).isNull();
    }

    assertThat(new TreeSet<>(rows.keySet())).as("properties in %s", PAGE).isEqualTo(others);
    for (String property : others) {
      JsonNode metadataDefault = metadata.get(property).path("defaultValue");
      List<String> written = codeSpans(rows.get(property).cell(1));
      if (metadataDefault.isMissingNode()) {
        assertThat(written).as("default of %s, which has none", property).isEmpty();
      } else {
        assertThat(written).as("default of %s", property).containsExactly(metadataDefault.asText());
      }
    }
  }

  /** The rows of the first table after {@code heading}, without its header and rule. */
  private static List<Row> table(String heading) throws IOException {
    List<String> lines = Files.readAllLines(PAGE);
    int at = lines.indexOf(heading);
    assertThat(at).as("%s in %s", heading, PAGE).isNotNegative();
    List<Row> rows = new ArrayList<>();
    boolean inTable = false;
    for (String line : lines.subList(at + 1, lines.size())) {
      if (line.startsWith("|")) {
        inTable = true;
        List<String> cells =
            Arrays.stream(line.substring(1, line.lastIndexOf('|')).split("\\|", -1))
                .map(String::strip)
                .toList();
        rows.add(new Row(cells));
      } else if (inTable || line.startsWith("## ")) {
        break;
      }
    }
    assertThat(rows.size()).as("rows of the table after %s", heading).isGreaterThan(2);
    return rows.subList(2, rows.size());
  }

  private static List<String> codeSpans(String cell) {
    List<String> spans = new ArrayList<>();
    Matcher m = CODE.matcher(cell);
    while (m.find()) {
      spans.add(m.group(1));
    }
    return spans;
  }

  private static Object convert(String value, Class<?> type) {
    return ApplicationConversionService.getSharedInstance().convert(value, type);
  }
}
