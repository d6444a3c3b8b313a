package dev.baton.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;

/**
 * The extension's per-class schema is dropped when the class is done, and JUnit (5.13 and later, 6)
 * logs no "implements CloseableResource but not AutoCloseable" warning about what the extension
 * keeps in its store.
 */
class ExtensionClosesWithoutWarningTest {
  private static final List<String> SCHEMAS = new ArrayList<>();

  @Test
  void theSchemaIsDroppedAfterTheClassAndJUnitWarnsAboutNothing() throws Exception {
    // A build that selects nested classes may have run UsesTheExtension on its own already.
    SCHEMAS.clear();
    List<String> warnings = new ArrayList<>();
    Handler capture =
        new Handler() {
          @Override
          public void publish(LogRecord record) {
            warnings.add(String.valueOf(record.getMessage()));
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    Logger junit = Logger.getLogger("org.junit");
    junit.addHandler(capture);
    SummaryGeneratingListener summary = new SummaryGeneratingListener();
    try {
      LauncherFactory.create()
          .execute(
              LauncherDiscoveryRequestBuilder.request()
                  .selectors(selectClass(UsesTheExtension.class))
                  .build(),
              summary);
    } finally {
      junit.removeHandler(capture);
    }

    assertThat(summary.getSummary().getTestsSucceededCount()).isEqualTo(1);
    assertThat(warnings).noneMatch(w -> w.contains("CloseableResource"));
    assertThat(SCHEMAS).hasSize(1);
    try (Connection c = TestDatabase.get().dataSource().getConnection();
        PreparedStatement st =
            c.prepareStatement("SELECT count(*) FROM pg_namespace WHERE nspname = ?")) {
      st.setString(1, SCHEMAS.get(0));
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        assertThat(rs.getInt(1)).as("schema " + SCHEMAS.get(0) + " left behind").isZero();
      }
    }
  }

  /** Run by the test above through the launcher, not by the build's own run. */
  @ExtendWith(BatonExtension.class)
  static class UsesTheExtension {
    @Test
    void takesTheSchema(TestSchema schema) {
      SCHEMAS.add(schema.name());
    }
  }
}
