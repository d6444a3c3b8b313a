package dev.baton.migrate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.JobArgs;
import dev.baton.SchemaNotMigratedException;
import dev.baton.SchemaTooNewException;
import dev.baton.testing.Fixture;
import org.junit.jupiter.api.Test;

/**
 * A schema migrated by a newer Baton: a client refuses to start on it and the migrator refuses to
 * change it, naming both versions, instead of running (or reporting "up to date") as if it knew it.
 */
class SchemaNewerThanTheLibraryIsRefusedTest {

  record Ping(int n) implements JobArgs {}

  @Test
  void aClientAndTheMigratorRefuseASchemaNewerThanTheyKnow() {
    int newer = Migrator.QUEUE_VERSION + 1;
    try (Fixture f = new Fixture()) {
      long recorded = f.count("SELECT count(*) FROM %s.migration WHERE line = 'queue'");
      f.execute(
          "INSERT INTO %s.migration (line, version, name) VALUES ('queue', " + newer + ", 'x')");
      Baton worker =
          Baton.builder(f.dataSource())
              .config(f.config().queue("default", 1).build())
              .handler(Ping.class, (ctx, p) -> {})
              .build();
      String expected =
          "is at version "
              + newer
              + ", newer than this library knows (version "
              + Migrator.QUEUE_VERSION
              + ")";
      assertThatThrownBy(worker::start)
          .isInstanceOf(SchemaTooNewException.class)
          .hasMessageContaining("Baton schema \"" + f.schema() + "\" " + expected);
      Migrator m = new Migrator(f.dataSource(), f.schema());
      assertThatThrownBy(m::up)
          .isInstanceOf(SchemaTooNewException.class)
          .hasMessageContaining(expected);
      assertThatThrownBy(m::down)
          .isInstanceOf(SchemaTooNewException.class)
          .hasMessageContaining(expected);
      assertThatThrownBy(m::requireLatest).isInstanceOf(SchemaTooNewException.class);
      // Nothing was changed: every version still recorded, the tables still there.
      assertThat(m.currentVersion()).isEqualTo(newer);
      assertThat(f.count("SELECT count(*) FROM %s.migration WHERE line = 'queue'"))
          .isEqualTo(recorded + 1);
      assertThat(f.count("SELECT count(*) FROM %s.job")).isZero();
    }
  }

  @Test
  void anOlderSchemaIsNamedWithBothVersions() {
    try (Fixture f = new Fixture()) {
      Migrator m = new Migrator(f.dataSource(), f.schema());
      m.down(Migrator.QUEUE_VERSION - 1);
      assertThatThrownBy(m::requireLatest)
          .isInstanceOf(SchemaNotMigratedException.class)
          .hasMessageContaining(
              "it is at version "
                  + m.currentVersion()
                  + ", this library needs "
                  + Migrator.QUEUE_VERSION);
      m.up();
      m.requireLatest();
    }
  }
}
