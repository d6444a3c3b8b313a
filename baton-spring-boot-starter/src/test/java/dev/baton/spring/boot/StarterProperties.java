package dev.baton.spring.boot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.beans.IntrospectionException;
import java.beans.Introspector;
import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The {@code baton.*} properties as {@link BatonProperties} declares them (its bean properties,
 * nested groups included), and as the starter's built configuration metadata lists them.
 */
final class StarterProperties {
  private StarterProperties() {}

  /** The properties of the starter alone, which set no BatonConfig setting. */
  private static final Set<String> STARTER_OWN_PREFIXES =
      Set.of(
          "baton.enabled",
          "baton.migrate",
          "baton.backlog-caps",
          "baton.metrics.",
          "baton.dashboard.");

  /** Whether {@code name} is one of the starter's own properties. */
  static boolean isStarterOwn(String name) {
    return STARTER_OWN_PREFIXES.stream()
        .anyMatch(p -> p.endsWith(".") ? name.startsWith(p) : name.equals(p));
  }

  /** Every property BatonProperties declares, e.g. {@code baton.retry.base}. */
  static Set<String> declared() {
    Set<String> names = new TreeSet<>();
    collect("baton", BatonProperties.class, names);
    return names;
  }

  private static void collect(String prefix, Class<?> type, Set<String> names) {
    try {
      for (PropertyDescriptor d :
          Introspector.getBeanInfo(type, Object.class).getPropertyDescriptors()) {
        String name = prefix + "." + kebab(d.getName());
        Class<?> valueType = d.getPropertyType();
        if (valueType.getDeclaringClass() == BatonProperties.class) {
          collect(name, valueType, names); // a group such as baton.retry
        } else {
          names.add(name);
        }
      }
    } catch (IntrospectionException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String kebab(String camel) {
    return camel.replaceAll("([A-Z])", "-$1").toLowerCase(java.util.Locale.ROOT);
  }

  /**
   * The properties of the metadata that spring-boot-configuration-processor wrote into the
   * starter's jar (or target/classes), by name, each as the metadata's JSON object.
   */
  static Map<String, JsonNode> metadata() {
    URL url = metadataUrl();
    try (InputStream in = url.openStream()) {
      Map<String, JsonNode> byName = new LinkedHashMap<>();
      for (JsonNode p : new ObjectMapper().readTree(in).path("properties")) {
        byName.put(p.path("name").asText(), p);
      }
      return byName;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // The starter's own file, not another jar's: the one beside BatonProperties.class.
  private static URL metadataUrl() {
    String starter =
        BatonProperties.class.getProtectionDomain().getCodeSource().getLocation().getPath();
    try {
      for (URL url :
          Collections.list(
              BatonProperties.class
                  .getClassLoader()
                  .getResources("META-INF/spring-configuration-metadata.json"))) {
        if (url.getPath().startsWith(starter) || url.getPath().startsWith("file:" + starter)) {
          return url;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    throw new AssertionError(
        "no META-INF/spring-configuration-metadata.json in "
            + starter
            + "; spring-boot-configuration-processor writes it at compile time");
  }
}
