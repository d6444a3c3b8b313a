package dev.baton.test;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.migrate.Migrator;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The extension's schema: migrated, one per test class, injected as a schema or data source. */
@ExtendWith(BatonExtension.class)
class BatonExtensionTest {
  private static String outer;

  @BeforeAll
  static void rememberTheClassSchema(TestSchema schema) {
    outer = schema.name();
  }

  @Test
  void givesAMigratedSchemaAndADataSourceOnItsServer(TestSchema schema, DataSource ds)
      throws Exception {
    Migrator m = new Migrator(ds, schema.name());
    assertThat(m.currentVersion()).isEqualTo(m.latestVersion());
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT count(*) FROM information_schema.tables WHERE table_schema = '"
                    + schema.name()
                    + "' AND table_name = 'job'")) {
      rs.next();
      assertThat(rs.getInt(1)).isEqualTo(1);
    }
  }

  @Test
  void everyTestOfTheClassSharesTheSchema(TestSchema schema) {
    assertThat(schema.name()).startsWith("baton_test_").isEqualTo(outer);
  }

  @Nested
  class ANestedClass {
    @Test
    void getsASchemaOfItsOwn(TestSchema schema, TestSchema same) {
      assertThat(schema).isSameAs(same);
      assertThat(schema.name()).startsWith("baton_test_").isNotEqualTo(outer);
    }
  }
}
