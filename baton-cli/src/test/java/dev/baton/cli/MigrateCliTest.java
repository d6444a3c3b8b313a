package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.migrate.Migrator;
import dev.baton.testing.TestDatabase;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MigrateCliTest {

  @Test
  void upCreatesTheTablesAndIsSafeToRepeat() {
    CliRunner cli = new CliRunner(TestDatabase.get().newSchemaName());
    CliRunner.Result first = cli.run("migrate", "up");
    assertThat(first.exitCode()).as(first.err()).isZero();
    assertThat(first.out())
        .contains("applied version " + allVersions(", "))
        .contains("version " + Migrator.QUEUE_VERSION);
    assertThat(cli.db.queryLong("SELECT count(*) FROM " + cli.schema + ".job")).isZero();

    CliRunner.Result again = cli.run("migrate", "up", "--json");
    assertThat(again.exitCode()).isZero();
    JsonNode doc = again.json();
    assertThat(doc.path("schema").asText()).isEqualTo(cli.schema);
    assertThat(doc.path("applied").size()).isZero();
    assertThat(doc.path("version").asInt()).isEqualTo(Migrator.QUEUE_VERSION);
  }

  @Test
  void migrateWithoutSubcommandMigratesUp() {
    CliRunner cli = new CliRunner(TestDatabase.get().newSchemaName());
    CliRunner.Result r = cli.run("migrate", "--json");
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.json().path("applied").toString()).isEqualTo("[" + allVersions(",") + "]");
  }

  @Test
  void downNeedsYesThenRevertsTheLatestVersion() {
    CliRunner cli = CliRunner.onNewMigratedSchema();
    CliRunner.Result refused = cli.run("migrate", "down");
    assertThat(refused.exitCode()).isEqualTo(BatonCli.USAGE);
    assertThat(refused.errLines()).hasSize(1);
    assertThat(refused.err()).contains("--yes").contains("version " + Migrator.QUEUE_VERSION);
    assertThat(new Migrator(cli.db.admin(), cli.schema).currentVersion())
        .isEqualTo(Migrator.QUEUE_VERSION);

    CliRunner.Result done = cli.run("migrate", "down", "--yes");
    assertThat(done.exitCode()).as(done.err()).isZero();
    assertThat(done.out())
        .contains("reverted version " + Migrator.QUEUE_VERSION)
        .contains("now at version " + (Migrator.QUEUE_VERSION - 1));
    assertThat(new Migrator(cli.db.admin(), cli.schema).currentVersion())
        .isEqualTo(Migrator.QUEUE_VERSION - 1);
  }

  @Test
  void downOnAnEmptySchemaRevertsNothing() {
    CliRunner cli = new CliRunner(TestDatabase.get().newSchemaName());
    CliRunner.Result r = cli.run("migrate", "down", "--yes");
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.out()).contains("nothing to revert");
  }

  @Test
  void printNeedsNoDatabase() {
    CliRunner.Result r = CliRunner.runRaw(Map.of(), "migrate", "print", "--schema", "jobs_x");
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.out()).contains("CREATE TABLE \"jobs_x\".job").contains("-- version 2");
    assertThat(r.err()).isEmpty();
  }

  @Test
  void aSchemaNewerThanThisBatonIsRefusedNamingBothVersionsAndLeftAlone() {
    CliRunner cli = CliRunner.onNewMigratedSchema();
    int newer = dev.baton.migrate.Migrator.QUEUE_VERSION + 1;
    long recorded = cli.db.queryLong("SELECT count(*) FROM " + cli.schema + ".migration");
    cli.db.execute(
        "INSERT INTO "
            + cli.schema
            + ".migration (line, version, name) VALUES ('queue', "
            + newer
            + ", 'x')");
    String expected =
        "is at version "
            + newer
            + ", newer than this library knows (version "
            + dev.baton.migrate.Migrator.QUEUE_VERSION
            + ")";
    for (List<String> command :
        List.of(
            List.of("migrate", "up"),
            List.of("migrate", "down"),
            List.of("migrate", "down", "--yes"),
            List.of("enqueue", "--kind", "k", "--args", "{}"),
            List.of("jobs", "list"),
            List.of("queues", "list"),
            List.of("stats"),
            List.of("nodes"))) {
      CliRunner.Result r = cli.run(command.toArray(new String[0]));
      assertThat(r.exitCode()).as("%s: %s", command, r.err()).isEqualTo(BatonCli.FAILED);
      assertThat(r.errLines()).as("%s", command).hasSize(1);
      assertThat(r.err()).as("%s", command).contains(expected);
      assertThat(r.out()).as("%s", command).isEmpty();
    }
    assertThat(cli.db.queryLong("SELECT max(version) FROM " + cli.schema + ".migration"))
        .isEqualTo(newer);
    assertThat(cli.db.queryLong("SELECT count(*) FROM " + cli.schema + ".job")).isZero();
  }

  @Test
  void enqueueAndListOnAnOlderSchemaSayWhichVersionTheyFoundAndNeed() {
    CliRunner cli = CliRunner.onNewMigratedSchema();
    assertThat(cli.run("migrate", "down", "--yes").exitCode()).isZero();
    // the version before the latest (version numbers may have gaps)
    int older = new Migrator(cli.db.admin(), cli.schema).currentVersion();
    for (List<String> command :
        List.of(List.of("enqueue", "--kind", "k", "--args", "{}"), List.of("jobs", "list"))) {
      CliRunner.Result r = cli.run(command.toArray(new String[0]));
      assertThat(r.exitCode()).as("%s: %s", command, r.err()).isEqualTo(BatonCli.FAILED);
      assertThat(r.errLines()).hasSize(1);
      assertThat(r.err())
          .contains(
              "it is at version "
                  + older
                  + ", this library needs "
                  + dev.baton.migrate.Migrator.QUEUE_VERSION)
          .contains("baton migrate up");
    }
  }

  @Test
  void onlyAMigrationsPermissionErrorSaysMigrationsNeedTheOwner() {
    dev.baton.testing.TestDatabase db = dev.baton.testing.TestDatabase.get();
    org.junit.jupiter.api.Assumptions.assumeTrue(
        db.queryLong(
                "SELECT (rolsuper OR rolcreaterole)::int FROM pg_roles WHERE rolname = current_user")
            == 1,
        "the test database user may not create roles");
    CliRunner owner = CliRunner.onNewMigratedSchema();
    String role = "baton_hint_" + ProcessHandle.current().pid();
    String password = "pw-" + java.util.UUID.randomUUID();
    db.execute("CREATE ROLE " + role + " LOGIN PASSWORD '" + password + "'");
    try {
      // Enough to read the schema's version, not to enqueue nor to migrate.
      db.execute("GRANT USAGE ON SCHEMA " + owner.schema + " TO " + role);
      db.execute("GRANT SELECT ON " + owner.schema + ".migration TO " + role);
      String url = db.jdbcUrlAs(role, password);
      CliRunner.Result enqueue =
          CliRunner.runRaw(
              java.util.Map.of(),
              "enqueue",
              "--kind",
              "k",
              "--args",
              "{}",
              "--database-url",
              url,
              "--schema",
              owner.schema);
      assertThat(enqueue.exitCode()).as(enqueue.err()).isEqualTo(BatonCli.FAILED);
      assertThat(enqueue.err())
          .contains("permission denied")
          .contains(
              "the role in the URL lacks a privilege (see docs/operations/least-privilege.md)")
          .doesNotContain("migrations need");
      String fresh = db.newSchemaName();
      db.execute("CREATE SCHEMA " + fresh);
      db.execute("GRANT USAGE ON SCHEMA " + fresh + " TO " + role);
      CliRunner.Result migrate =
          CliRunner.runRaw(
              java.util.Map.of(), "migrate", "up", "--database-url", url, "--schema", fresh);
      assertThat(migrate.exitCode()).as(migrate.err()).isEqualTo(BatonCli.FAILED);
      assertThat(migrate.err())
          .contains("permission denied")
          .contains("migrations need the schema's owner");
      // A migration refused while reading the schema's version is still a migration.
      CliRunner other = CliRunner.onNewMigratedSchema();
      db.execute("GRANT USAGE ON SCHEMA " + other.schema + " TO " + role);
      CliRunner.Result up =
          CliRunner.runRaw(
              java.util.Map.of(), "migrate", "up", "--database-url", url, "--schema", other.schema);
      assertThat(up.exitCode()).as(up.err()).isEqualTo(BatonCli.FAILED);
      assertThat(up.err())
          .contains("permission denied")
          .contains("migrations need the schema's owner")
          .doesNotContain("least-privilege");
    } finally {
      db.execute("DROP OWNED BY " + role);
      db.execute("DROP ROLE " + role);
    }
  }

  /** Every queue version, 1 to the latest, joined by {@code separator}. */
  private static String allVersions(String separator) {
    return java.util.stream.IntStream.rangeClosed(1, Migrator.QUEUE_VERSION)
        .mapToObj(Integer::toString)
        .collect(java.util.stream.Collectors.joining(separator));
  }
}
