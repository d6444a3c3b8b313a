package dev.baton.test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * What {@link BatonTestSchema} does, for Spring's TestContext framework, which loads this factory
 * from baton-test's {@code META-INF/spring.factories}; tests do not call it.
 */
public final class BatonTestSchemaCustomizerFactory implements ContextCustomizerFactory {

  /** Created by Spring's TestContext framework. */
  public BatonTestSchemaCustomizerFactory() {}

  @Override
  public ContextCustomizer createContextCustomizer(
      Class<?> testClass, List<ContextConfigurationAttributes> configAttributes) {
    BatonTestSchema annotation =
        AnnotatedElementUtils.findMergedAnnotation(testClass, BatonTestSchema.class);
    return annotation == null ? null : new Customizer(testClass, annotation.database());
  }

  /**
   * Adds the class's properties to the context's environment and a bean that drops the schema when
   * the context closes. Equal for one test class only, so each class has its own context.
   */
  static final class Customizer implements ContextCustomizer {
    /** The source Spring gives the properties of @SpringBootTest and @TestPropertySource. */
    static final String INLINED_TEST_PROPERTIES = "Inlined Test Properties";

    static final String PROPERTY_SOURCE = "batonTestSchema";

    private final Class<?> testClass;
    private final BatonTestSchema.Database database;

    Customizer(Class<?> testClass, BatonTestSchema.Database database) {
      this.testClass = testClass;
      this.database = database;
    }

    @Override
    public void customizeContext(
        ConfigurableApplicationContext context, MergedContextConfiguration mergedConfig) {
      String schema = TestDatabase.newSchemaName();
      Map<String, Object> properties = new LinkedHashMap<>();
      properties.put("baton.schema", schema);
      properties.put("baton.migrate", "true");
      properties.put("baton.enabled", "false");
      if (database == BatonTestSchema.Database.TEST_DATABASE) {
        properties.put("spring.datasource.url", TestDatabase.get().jdbcUrl());
      }
      MapPropertySource source = new MapPropertySource(PROPERTY_SOURCE, properties);
      MutablePropertySources sources = context.getEnvironment().getPropertySources();
      // Below the test's own properties, so a test can still say baton.enabled=true.
      if (sources.contains(INLINED_TEST_PROPERTIES)) {
        sources.addAfter(INLINED_TEST_PROPERTIES, source);
      } else {
        sources.addFirst(source);
      }
      context
          .getBeanFactory()
          .registerSingleton("batonTestSchemaDropper", new Dropper(context, schema));
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Customizer c && c.testClass == testClass && c.database == database;
    }

    @Override
    public int hashCode() {
      return Objects.hash(testClass.getName(), database);
    }
  }

  /**
   * Drops the schema when the context stops: in the lowest phase, so after the starter's workers
   * have stopped and before the {@code DataSource} is closed.
   */
  static final class Dropper implements SmartLifecycle {
    private static final Logger log = LoggerFactory.getLogger(BatonTestSchema.class);

    private final ConfigurableApplicationContext context;
    private final String schema;
    private volatile boolean running;

    Dropper(ConfigurableApplicationContext context, String schema) {
      this.context = context;
      this.schema = schema;
    }

    @Override
    public void start() {
      running = true;
    }

    @Override
    public void stop() {
      running = false;
      try {
        TestDatabase.drop(context.getBean(DataSource.class), schema);
      } catch (RuntimeException e) {
        // At the end of a test run the server may be gone first (an embedded one's shutdown hook,
        // a container stopped after its class): nothing is left to drop then.
        log.info("Baton test schema {} not dropped: {}", schema, e.toString());
      }
    }

    @Override
    public boolean isRunning() {
      return running;
    }

    @Override
    public int getPhase() {
      return Integer.MIN_VALUE;
    }
  }
}
