package dev.baton.internal.db;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.baton.migrate.Migrator;
import dev.baton.testing.TestDatabase;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

/**
 * Every statement of this package is SQL that PostgreSQL accepts against a migrated schema. A
 * statement is a {@code static final String} of a class of {@code dev.baton.internal.db}, unless it
 * is marked {@link Fragment} or is one of the few constants that hold no SQL ({@link #NOT_SQL}).
 * Statements are built from their fragments at class load, so a composition that went wrong (a
 * comma lost between two CTEs, a fragment joined in the wrong place) is text no one ran; this test
 * prints each statement as the stores run it and has the server parse, analyse and plan it: {@code
 * PREPARE} with every {@code ?} a parameter of a type the server infers, then {@code EXPLAIN
 * EXECUTE} of its generic plan, which plans every condition whatever the values. A statement that
 * {@code EXPLAIN} does not take (COPY, DDL, LISTEN, SET) is run instead, in a transaction rolled
 * back.
 *
 * <p>A fragment is text that several statements share, written once; one that stands in fewer than
 * two statements belongs in its statement.
 */
class EveryStatementExplainsTest {

  /** The string constants of this package that are no SQL. */
  private static final Set<String> NOT_SQL =
      Set.of("SchemaName.PLACEHOLDER", "Leadership.MAINTENANCE");

  private static final Set<String> EXPLAINABLE =
      Set.of("SELECT", "INSERT", "UPDATE", "DELETE", "WITH");

  private static final TestDatabase DB = TestDatabase.get();
  private static SchemaName schema;

  /** A string constant of a class of this package. */
  record Constant(String name, String text, boolean fragment) {
    @Override
    public String toString() {
      return name;
    }
  }

  @BeforeAll
  static void migrate() {
    String name = DB.newSchemaName();
    new Migrator(DB.admin(), name).up();
    Migrator.forInbox(DB.admin(), name).up();
    schema = SchemaName.of(name);
  }

  static List<Constant> constants() throws IllegalAccessException {
    List<Constant> out = new ArrayList<>();
    for (JavaClass c :
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(EveryStatementExplainsTest.class.getPackageName())) {
      if (!c.getPackageName().equals(EveryStatementExplainsTest.class.getPackageName())) {
        continue;
      }
      for (Field f : c.reflect().getDeclaredFields()) {
        int m = f.getModifiers();
        if (f.getType() != String.class || !Modifier.isStatic(m) || !Modifier.isFinal(m)) {
          continue;
        }
        String name = c.reflect().getSimpleName() + "." + f.getName();
        if (NOT_SQL.contains(name)) {
          continue;
        }
        f.setAccessible(true);
        out.add(new Constant(name, (String) f.get(null), f.isAnnotationPresent(Fragment.class)));
      }
    }
    out.sort(Comparator.comparing(Constant::name));
    return out;
  }

  static Stream<Constant> statements() throws IllegalAccessException {
    return constants().stream().filter(c -> !c.fragment());
  }

  @Test
  void theStatementsOfEveryStoreAreFound() throws IllegalAccessException {
    assertThat(statements().map(Constant::name))
        .as("statements found by reflection")
        .contains(
            "HolderStore.CLAIM",
            "HolderStore.COMPLETE_AND_CLAIM_DELETING",
            "EnqueueStore.ENQUEUE_CLAIMING",
            "MaintenanceStore.RESCUE_GONE",
            "BrowseStore.SCAN_CLAIM",
            "AdminStore.RETRY",
            "ClusterStore.NODE_LOCKS",
            "MigrationStore.CREATE_TABLE",
            "Db.RESET_STATEMENT_TIMEOUT")
        .hasSizeGreaterThan(60);
  }

  @ParameterizedTest
  @MethodSource("statements")
  void everyStatementIsSqlThatThePlannerTakes(Constant statement) throws SQLException {
    String sql =
        statement.text().contains("${schema}") ? schema.expand(statement.text()) : statement.text();
    System.out.println("-- " + statement.name() + "\n" + sql.strip() + "\n");
    assertThat(sql)
        .as("%s holds a slot that nothing filled", statement.name())
        .doesNotContain("${");
    String verb = sql.stripLeading().split("\\s+", 2)[0].toUpperCase(Locale.ROOT);
    try (Connection c = DB.admin().getConnection()) {
      c.setAutoCommit(false);
      try {
        if (EXPLAINABLE.contains(verb)) {
          System.out.println(explain(c, sql));
        } else {
          run(c, sql);
        }
      } catch (SQLException e) {
        throw new AssertionError(
            statement.name() + " is not SQL that PostgreSQL takes: " + e.getMessage() + "\n" + sql,
            e);
      } finally {
        c.rollback();
        c.setAutoCommit(true);
      }
    }
  }

  @Test
  void everyFragmentStandsInSeveralStatements() throws IllegalAccessException {
    List<Constant> constants = constants();
    List<Constant> fragments = constants.stream().filter(Constant::fragment).toList();
    assertThat(fragments).as("fragments").isNotEmpty();
    for (Constant fragment : fragments) {
      List<String> holders =
          constants.stream()
              .filter(c -> !c.fragment() && c.text().contains(fragment.text()))
              .map(Constant::name)
              .toList();
      assertThat(holders).as("statements that hold %s", fragment.name()).hasSizeGreaterThan(1);
    }
  }

  /** The generic plan of {@code sql}, prepared with parameters of the types the server infers. */
  private static String explain(Connection c, String sql) throws SQLException {
    Numbered numbered = Numbered.of(sql);
    List<String> nulls = new ArrayList<>();
    for (int i = 0; i < numbered.parameters(); i++) {
      nulls.add("NULL");
    }
    String args = nulls.isEmpty() ? "" : "(" + String.join(", ", nulls) + ")";
    StringBuilder plan = new StringBuilder();
    try (Statement st = c.createStatement()) {
      st.execute("SET LOCAL plan_cache_mode = force_generic_plan");
      st.execute("PREPARE every_statement_explains AS " + numbered.sql());
      try (ResultSet rs = st.executeQuery("EXPLAIN EXECUTE every_statement_explains" + args)) {
        while (rs.next()) {
          plan.append(rs.getString(1)).append('\n');
        }
      } finally {
        st.execute("DEALLOCATE every_statement_explains");
      }
    }
    return plan.toString();
  }

  /** Runs a statement that EXPLAIN does not take: COPY as far as its stream, others whole. */
  private static void run(Connection c, String sql) throws SQLException {
    if (sql.stripLeading().toUpperCase(Locale.ROOT).startsWith("COPY")) {
      CopyIn copy = c.unwrap(PGConnection.class).getCopyAPI().copyIn(sql);
      copy.cancelCopy();
      return;
    }
    try (Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  /**
   * A statement with each {@code ?} outside quotes and comments written as $1, $2, ..., as the
   * driver numbers them, and how many there are.
   */
  record Numbered(String sql, int parameters) {
    static Numbered of(String sql) {
      StringBuilder out = new StringBuilder(sql.length() + 16);
      int n = 0;
      for (int i = 0; i < sql.length(); i++) {
        char ch = sql.charAt(i);
        if (ch == '\'' || ch == '"') {
          int end = sql.indexOf(ch, i + 1);
          out.append(sql, i, end + 1);
          i = end;
        } else if (sql.startsWith("--", i)) {
          int end = sql.indexOf('\n', i);
          end = end < 0 ? sql.length() : end;
          out.append(sql, i, end);
          i = end - 1;
        } else if (ch == '?') {
          out.append('$').append(++n);
        } else {
          out.append(ch);
        }
      }
      return new Numbered(out.toString(), n);
    }
  }
}
