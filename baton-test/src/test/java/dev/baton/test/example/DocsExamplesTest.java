package dev.baton.test.example;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.BatonConfig;
import dev.baton.QueueInfo;
import dev.baton.admin.BatonAdmin;
import dev.baton.migrate.Migrator;
import dev.baton.test.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

// Short examples of the docs pages, quoted there verbatim between the docs markers below
// (DocSnippetsAreCompiledTest) and run here as written.
class DocsExamplesTest {

  @Test
  void configurationReference() {
    // docs:begin configuration
    BatonConfig config =
        BatonConfig.builder()
            .queue("mail", 8)
            .lease(Duration.ofSeconds(60))
            .completedRetention(Duration.ofHours(6))
            .build();
    // docs:end configuration

    assertThat(config.queues().get("mail").concurrency()).isEqualTo(8);
    assertThat(config.lease()).isEqualTo(Duration.ofSeconds(60));
    assertThat(config.completedRetention()).isEqualTo(Duration.ofHours(6));
  }

  @Test
  void operatorApiWithoutANode() throws Exception {
    // The docs use the default schema, "baton" (ReadmeUsageTest uses it too, and drops it).
    DataSource dataSource = TestDatabase.get().dataSource();
    dropSchemaBaton(dataSource);
    new Migrator(dataSource, "baton").up();

    // docs:begin cluster-admin
    BatonAdmin admin = new BatonAdmin(dataSource, "baton");
    admin.pause("mail", "ops@example.com"); // recorded as who paused it
    // docs:end cluster-admin
    assertThat(admin.queues())
        .extracting(QueueInfo::name, QueueInfo::paused, QueueInfo::pausedBy)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("mail", true, "ops@example.com"));
    // docs:begin cluster-admin
    admin.resume("mail", "ops@example.com");
    admin.queues();
    admin.nodes();
    admin.leader();
    admin.stats();
    // docs:end cluster-admin

    assertThat(admin.queues()).extracting(QueueInfo::paused).containsOnly(false);
    dropSchemaBaton(dataSource);
  }

  private static void dropSchemaBaton(DataSource dataSource) throws Exception {
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement()) {
      st.execute("DROP SCHEMA IF EXISTS baton CASCADE");
    }
  }
}
