package dev.baton.migrate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.InvalidConfigException;
import dev.baton.JobArgs;
import dev.baton.SchemaNotMigratedException;
import dev.baton.testing.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MigratorTest {
  private static final TestDatabase DB = TestDatabase.get();
  private static HikariDataSource ds;

  record Ping(int n) implements JobArgs {}

  @BeforeAll
  static void pool() {
    ds = DB.dataSource(10);
    // open the connections the concurrent test needs up front, so its threads do not wait for the
    // pool to grow one connection at a time
    List<Connection> held = new ArrayList<>();
    try {
      for (int i = 0; i < 9; i++) {
        held.add(ds.getConnection());
      }
      for (Connection c : held) {
        c.close();
      }
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @AfterAll
  static void closePool() {
    ds.close();
  }

  @Test
  void upAppliesEveryVersionOnceAndASecondUpAppliesNothing() {
    String schema = DB.newSchemaName();
    Migrator migrator = new Migrator(ds, schema);
    assertThat(migrator.currentVersion()).isZero();

    assertThat(migrator.up()).containsExactly(1, 2, 3, 4, 5, 6, 10);
    assertThat(migrator.currentVersion()).isEqualTo(10);
    assertThat(migrator.up()).isEmpty();
    assertThat(new Migrator(ds, schema).up()).isEmpty();

    assertThat(DB.queryLong(bookkeepingRows(schema))).isEqualTo(7);
    assertThat(tableExists(schema, "job")).isTrue();
    assertThat(tableExists(schema, "leader")).isTrue();
    assertThat(tableExists(schema, "queue_stats")).isTrue();
  }

  @Test
  void aSchemaAtVersionOneWithJobsIsUpgradedAndDownGoesBackOneVersion() {
    String schema = DB.newSchemaName();
    Migrator migrator = new Migrator(ds, schema);
    assertThat(migrator.up(1)).containsExactly(1);
    DB.execute("INSERT INTO " + schema + ".job (kind) VALUES ('old_job')");

    assertThat(migrator.up()).containsExactly(2, 3, 4, 5, 6, 10);
    assertThat(DB.queryLong("SELECT count(*) FROM " + schema + ".job")).isEqualTo(1);
    assertThat(DB.queryLong("SELECT sum(available) FROM " + schema + ".queue_stats")).isEqualTo(1);
    assertThat(migrator.down(5)).containsExactly(10, 6);
    assertThat(
            DB.queryLong(
                "SELECT count(*) FROM information_schema.columns WHERE table_schema = '"
                    + schema
                    + "' AND table_name = 'node' AND column_name = 'locked_on'"))
        .isZero();
    assertThat(migrator.down(4)).containsExactly(5);
    assertThat(
            DB.queryLong(
                "SELECT count(*) FROM information_schema.columns WHERE table_schema = '"
                    + schema
                    + "' AND table_name = 'node' AND column_name = 'session_lock'"))
        .isZero();
    assertThat(migrator.down(3)).containsExactly(4);
    assertThat(tableExists(schema, "job_completions")).isFalse();
    assertThat(DB.queryLong("SELECT sum(available) FROM " + schema + ".queue_stats")).isEqualTo(1);
    assertThat(migrator.down(2)).containsExactly(3);
    assertThat(tableExists(schema, "queue_stats")).isFalse();
    assertThat(migrator.down(1)).containsExactly(2);
    assertThat(tableExists(schema, "leader")).isFalse();
    assertThat(tableExists(schema, "job_archive")).isFalse();
    assertThat(DB.queryLong("SELECT count(*) FROM " + schema + ".job")).isEqualTo(1);
    assertThat(migrator.currentVersion()).isEqualTo(1);
  }

  @Test
  void concurrentUpsOnAFreshSchemaApplyEachVersionExactlyOnce() throws Exception {
    String schema = DB.newSchemaName();
    int threads = 8;
    CyclicBarrier start = new CyclicBarrier(threads);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<List<Integer>>> results = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        results.add(
            pool.submit(
                () -> {
                  Migrator m = new Migrator(ds, schema);
                  start.await(30, TimeUnit.SECONDS);
                  return m.up();
                }));
      }
      List<List<Integer>> applied = new ArrayList<>();
      for (Future<List<Integer>> f : results) {
        applied.add(f.get(60, TimeUnit.SECONDS)); // throws if any up() failed
      }
      assertThat(applied).filteredOn(a -> a.equals(List.of(1, 2, 3, 4, 5, 6, 10))).hasSize(1);
      assertThat(applied).filteredOn(List::isEmpty).hasSize(threads - 1);
    } finally {
      pool.shutdownNow();
    }
    assertThat(DB.queryLong(bookkeepingRows(schema))).isEqualTo(7);
    assertThat(new Migrator(ds, schema).currentVersion()).isEqualTo(10);
  }

  @Test
  void ownerOfAnExistingSchemaMigratesWithoutCreateOnTheDatabase() {
    String role = "mig_" + ProcessHandle.current().pid();
    String schema = DB.newSchemaName();
    String password = "pw-" + java.util.UUID.randomUUID();
    DB.execute("CREATE ROLE " + role + " LOGIN PASSWORD '" + password + "'");
    try {
      // PUBLIC has no CREATE on a database by default, so the role can create nothing but in
      // the schema it owns.
      DB.execute("CREATE SCHEMA " + schema + " AUTHORIZATION " + role);
      try (HikariDataSource asOwner = new HikariDataSource()) {
        asOwner.setJdbcUrl(DB.jdbcUrlAs(role, password));
        asOwner.setMaximumPoolSize(2);
        assertThat(new Migrator(asOwner, schema).up()).containsExactly(1, 2, 3, 4, 5, 6, 10);
        assertThatThrownBy(() -> new Migrator(asOwner, DB.newSchemaName()).up())
            .hasMessageContaining("permission denied");
      }
    } finally {
      DB.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
      DB.execute("DROP ROLE IF EXISTS " + role);
    }
  }

  @Test
  void downDropsTheJobTableAndItsBookkeepingRow() {
    String schema = DB.newSchemaName();
    Migrator migrator = new Migrator(ds, schema);
    migrator.up();

    assertThat(migrator.down(0)).containsExactly(10, 6, 5, 4, 3, 2, 1);

    assertThat(tableExists(schema, "job")).isFalse();
    assertThat(tableExists(schema, "queue_stats")).isFalse();
    assertThat(tableExists(schema, "node")).isFalse();
    assertThat(tableExists(schema, "job_fence_seq")).isFalse();
    assertThat(DB.queryLong(bookkeepingRows(schema))).isZero();
    assertThat(migrator.currentVersion()).isZero();
    assertThat(migrator.down()).isEmpty();
    // and the schema can be migrated again
    assertThat(migrator.up()).containsExactly(1, 2, 3, 4, 5, 6, 10);
  }

  @Test
  void downOnASchemaThatWasNeverMigratedRevertsNothing() {
    String schema = DB.newSchemaName();
    assertThat(new Migrator(ds, schema).down()).isEmpty();
    assertThat(DB.queryLong("SELECT count(*) FROM pg_namespace WHERE nspname = '" + schema + "'"))
        .as("down creates nothing")
        .isZero();
  }

  @Test
  void printedScriptRunAsOneScriptYieldsASchemaAClientCanStartOn() throws Exception {
    String schema = DB.newSchemaName();
    String script = new Migrator(ds, schema).print();
    assertThat(script).contains("CREATE TABLE").contains("\"" + schema + "\".job");
    assertThat(script).doesNotContain("${schema}");

    try (Connection c = ds.getConnection();
        Statement st = c.createStatement()) {
      st.execute(script);
    }

    assertThat(new Migrator(ds, schema).currentVersion()).isEqualTo(10);
    assertThat(new Migrator(ds, schema).up()).as("nothing left to apply").isEmpty();
    try (Baton baton =
        Baton.builder(ds)
            .config(BatonConfig.builder().schema(schema).queue("default", 1).build())
            .handler(Ping.class, (ctx, args) -> {})
            .build()) {
      baton.start();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"Bad-Name", "x; drop table", "Baton", "1abc", "", "a\"b"})
  void invalidSchemaNameIsRejectedAtConstruction(String name) {
    assertThatThrownBy(() -> new Migrator(ds, name))
        .isInstanceOfSatisfying(
            InvalidConfigException.class, e -> assertThat(e.property()).isEqualTo("schema"))
        .hasMessageContaining("schema");
  }

  @Test
  void overlongAndNullSchemaNamesAreRejectedAtConstruction() {
    assertThatThrownBy(() -> new Migrator(ds, "a".repeat(56)))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("schema");
    assertThatThrownBy(() -> new Migrator(ds, null))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("schema");
    assertThat(new Migrator(ds, "a".repeat(55)).latestVersion()).isEqualTo(10);
  }

  @Test
  void clientOnMissingSchemaFailsToStartAndSaysToRunTheMigrator() {
    String schema = DB.newSchemaName();
    assertStartFailsNamingMigrator(schema);
  }

  @Test
  void clientOnSchemaMigratedDownFailsToStartAndSaysToRunTheMigrator() {
    String schema = DB.newSchemaName();
    Migrator migrator = new Migrator(ds, schema);
    migrator.up();
    migrator.down();
    assertStartFailsNamingMigrator(schema);
  }

  @Test
  void clientOnSchemaWithOnlyTheInboxMigratedFailsToStartAndSaysToRunTheMigrator() {
    String schema = DB.newSchemaName();
    assertThat(Migrator.forInbox(ds, schema).up()).containsExactly(1);
    assertStartFailsNamingMigrator(schema);
  }

  private static void assertStartFailsNamingMigrator(String schema) {
    try (Baton baton =
        Baton.builder(ds)
            .config(BatonConfig.builder().schema(schema).queue("default", 1).build())
            .handler(Ping.class, (ctx, args) -> {})
            .build()) {
      assertThatThrownBy(baton::start)
          .isInstanceOfSatisfying(
              SchemaNotMigratedException.class, e -> assertThat(e.schema()).isEqualTo(schema))
          .hasMessageContaining(schema)
          .hasMessageContaining("Migrator")
          .hasMessageContaining(".up()");
    }
  }

  private static String bookkeepingRows(String schema) {
    return "SELECT count(*) FROM \"" + schema + "\".migration WHERE line = 'queue'";
  }

  private static boolean tableExists(String schema, String relation) {
    return DB.queryLong(
            "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                + " WHERE n.nspname = '"
                + schema
                + "' AND c.relname = '"
                + relation
                + "'")
        == 1;
  }
}
