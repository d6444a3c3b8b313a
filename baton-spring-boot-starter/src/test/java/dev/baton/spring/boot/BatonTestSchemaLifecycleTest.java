package dev.baton.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.spring.boot.shop.ShopApplication;
import dev.baton.test.BatonTestSchema;
import dev.baton.test.BatonTestSchemaCustomizerFactory;
import dev.baton.test.TestBaton;
import dev.baton.test.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.context.ContextCustomizer;

/**
 * What {@code @BatonTestSchema} does around a context: one context (and schema) per test class, the
 * schema dropped when the context closes; and what a test without it is told when it drains a
 * started client.
 */
class BatonTestSchemaLifecycleTest {

  @BatonTestSchema
  static class OneTestClass {}

  @BatonTestSchema
  static class AnotherTestClass {}

  @Test
  void eachAnnotatedClassHasAContextOfItsOwnAndOthersNone() {
    BatonTestSchemaCustomizerFactory factory = new BatonTestSchemaCustomizerFactory();
    ContextCustomizer one = factory.createContextCustomizer(OneTestClass.class, List.of());

    assertThat(one).isEqualTo(factory.createContextCustomizer(OneTestClass.class, List.of()));
    assertThat(one)
        .isNotEqualTo(factory.createContextCustomizer(AnotherTestClass.class, List.of()));
    assertThat(factory.createContextCustomizer(getClass(), List.of())).isNull();
  }

  @Test
  void theSchemaIsMigratedForTheContextAndDroppedWhenItCloses() throws Exception {
    ContextCustomizer customizer =
        new BatonTestSchemaCustomizerFactory()
            .createContextCustomizer(OneTestClass.class, List.of());
    ConfigurableApplicationContext context =
        new SpringApplicationBuilder(ShopApplication.class)
            .web(WebApplicationType.NONE)
            .initializers(c -> customizer.customizeContext(c, null))
            .run();
    String schema;
    try {
      schema = context.getBean(Baton.class).config().schema();
      assertThat(schemaExists(schema)).as(schema).isTrue();
    } finally {
      context.close();
    }
    assertThat(schemaExists(schema)).as(schema + " after the context closed").isFalse();
  }

  @Test
  void drainingAStartedClientNamesThePropertyThatStopsIt() {
    ConfigurableApplicationContext context =
        new SpringApplicationBuilder(ShopApplication.class)
            .web(WebApplicationType.NONE)
            .properties(
                "spring.datasource.url=" + TestDatabase.get().jdbcUrl(),
                "baton.schema=" + TestDatabase.get().newSchema().name())
            .run();
    try {
      TestBaton jobs =
          TestBaton.of(context.getBean(Baton.class), context.getBean(DataSource.class));
      assertThatThrownBy(() -> jobs.drain("default"))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("this client is started")
          .hasMessageContaining("baton.enabled=false")
          .hasMessageContaining("@BatonTestSchema");
    } finally {
      context.close();
    }
  }

  private static boolean schemaExists(String schema) throws Exception {
    try (Connection c = TestDatabase.get().dataSource().getConnection();
        PreparedStatement st =
            c.prepareStatement("SELECT count(*) FROM pg_namespace WHERE nspname = ?")) {
      st.setString(1, schema);
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        return rs.getInt(1) == 1;
      }
    }
  }
}
