package dev.baton.internal.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.migrate.Migrator;
import dev.baton.testing.TestDatabase;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The pgbench scripts in {@code baton-benchmarks/pgbench/} are "Baton's own limit" only while they
 * run Baton's SQL: these tests compare them with the statements the compiled {@code HolderStore}
 * prepares, and run them (as pgbench would, with {@code -M prepared}) against PostgreSQL.
 *
 * <p>The statements are private fields of the stores, read here from a store made for schema {@code
 * baton}, the schema the scripts name. The test lives beside the stores, in baton-core, because
 * only core's tests may read core's internals; it reads the scripts from the benchmarks module's
 * folder. A test failing here after a change of either store means: copy the changed SQL into the
 * script (the expected text is in the message), with each {@code ?} as the pgbench variable listed
 * below for its position.
 */
class PgbenchScriptsTest {
  // The working directory is baton-core's folder; the scripts are the benchmarks module's.
  private static final Path DIR = Path.of("../baton-benchmarks/pgbench");

  /** The variables standing for HolderStore.bindClaim's binds, in its order. */
  private static final List<String> CLAIM_BINDS =
      List.of(
          "queue",
          "queue",
          "batch",
          "node",
          "lease_ms",
          "timeout_kinds",
          "timeout_ms",
          "default_timeout_ms",
          "lease_ms");

  /**
   * The variables standing for the (ids, fences) arrays of a completion, in HolderStore's order.
   */
  private static final List<String> COMPLETION_BINDS = List.of("ids", "fences");

  /**
   * What stands for EnqueueStore.ENQUEUE's binds, in its order: queue, kind, args, run time,
   * priority, max attempts, run time, key, metadata, channel. pgbench has no NULL value: the run
   * time and the key, NULL for a job due now without a key, are NULLIF of a variable set to none.
   */
  private static final List<String> ENQUEUE_BINDS =
      List.of(
          ":queue",
          ":kind",
          ":args",
          "NULLIF(:run_at, 'none')",
          ":priority",
          ":max_attempts",
          "NULLIF(:run_at, 'none')",
          "NULLIF(:key, 'none')",
          ":metadata",
          ":channel");

  /** COMPLETE_AND_CLAIM binds the completion's arrays, then the claim's binds. */
  private static final List<String> COMPLETE_AND_CLAIM_BINDS =
      Stream.concat(COMPLETION_BINDS.stream(), CLAIM_BINDS.stream()).toList();

  // ---------------------------------------------------------------- the text is HolderStore's

  @Test
  void completeAndClaimScriptRunsHolderStoresCompleteAndClaim() throws Exception {
    List<String> commands = sqlCommands(read("complete_and_claim.sql"));
    assertThat(commands).as("SQL commands of complete_and_claim.sql").hasSize(1);

    Split expected =
        split(withVariables(holderStoreSql("completeAndClaim"), COMPLETE_AND_CLAIM_BINDS));
    Split script = split(commands.get(0));
    // Everything but the final SELECT is HolderStore's; the final SELECT is the script's
    // projection.
    assertSameSql("complete_and_claim.sql (its CTEs)", script.ctes(), expected.ctes());
  }

  @Test
  void completeAndClaimDeleteScriptRunsHolderStoresDeletingCompleteAndClaim() throws Exception {
    List<String> commands = sqlCommands(read("complete_and_claim_delete.sql"));
    assertThat(commands).as("SQL commands of complete_and_claim_delete.sql").hasSize(1);
    Split expected =
        split(
            withVariables(holderStoreSql("completeAndClaim", "DELETED"), COMPLETE_AND_CLAIM_BINDS));
    assertSameSql(
        "complete_and_claim_delete.sql (its CTEs)", split(commands.get(0)).ctes(), expected.ctes());
  }

  @Test
  void claimThenCompleteScriptRunsHolderStoresClaimThenCompleteManyIfHeld() throws Exception {
    List<String> commands = sqlCommands(read("claim_then_complete.sql"));
    assertThat(commands).as("SQL commands of claim_then_complete.sql").hasSize(2);

    // The claim: HolderStore's CTE, and its UPDATE as the CTE "claimed"; the final SELECT is the
    // script's projection.
    Split claim = split(withVariables(holderStoreSql("claim"), CLAIM_BINDS));
    assertSameSql(
        "claim_then_complete.sql, first command (its CTEs)",
        split(commands.get(0)).ctes(),
        claim.ctes() + ", claimed AS (" + claim.main() + ")");
    // The completion: HolderStore's statement, whole.
    assertSameSql(
        "claim_then_complete.sql, second command",
        commands.get(1),
        withVariables(holderStoreSql("completeManyIfHeld"), COMPLETION_BINDS));
  }

  @Test
  void enqueueScriptRunsEnqueueStoresEnqueue() throws Exception {
    List<String> commands = sqlCommands(read("enqueue.sql"));
    assertThat(commands).as("SQL commands of enqueue.sql").hasSize(1);
    assertSameSql(
        "enqueue.sql", commands.get(0), withBinds(enqueueStoreSql("enqueue"), ENQUEUE_BINDS));
  }

  @Test
  void aChangedStatementIsCaught() throws Exception {
    // The comparison is not vacuous: the script with one word of HolderStore's claim changed
    // differs.
    String script = sqlCommands(read("complete_and_claim.sql")).get(0);
    Split changed = split(script.replace("FOR UPDATE SKIP LOCKED", "FOR UPDATE"));
    Split expected =
        split(withVariables(holderStoreSql("completeAndClaim"), COMPLETE_AND_CLAIM_BINDS));
    assertThat(normalize(changed.ctes())).isNotEqualTo(normalize(expected.ctes()));
  }

  // ---------------------------------------------------------------- the scripts work

  @Test
  void completeAndClaimDrainsTheQueueCompletingEveryJobOnce() throws Exception {
    drainAndCheck("complete_and_claim.sql");
  }

  @Test
  void claimThenCompleteDrainsTheQueueCompletingEveryJobOnce() throws Exception {
    drainAndCheck("claim_then_complete.sql");
  }

  @Test
  void completeAndClaimDeleteDrainsTheQueueDeletingAndCountingEveryJobOnce() throws Exception {
    drainAndCheck("complete_and_claim_delete.sql");
  }

  @Test
  void enqueueScriptsInsertAvailableJobsAndNotifyTheQueue() throws Exception {
    TestDatabase db = TestDatabase.get();
    String schema = db.newSchemaName();
    new Migrator(db.admin(), schema).up();
    Map<String, String> v =
        new HashMap<>(
            Map.of(
                "queue", "default",
                "kind", "bench_noop",
                "args", "{\"single\": true}",
                "priority", "0",
                "max_attempts", "20",
                "run_at", "none",
                "key", "none",
                "metadata", "{}",
                "channel", schema + "_insert",
                "n", "30"));
    try (Connection listener = db.admin().getConnection();
        Connection c = db.admin().getConnection()) {
      try (Statement st = listener.createStatement()) {
        st.execute("LISTEN \"" + schema + "_insert\"");
      }
      for (Command command : commands(inSchema(read("enqueue.sql"), schema))) {
        command.run(c, v);
        command.run(c, v);
      }
      for (Command command : commands(inSchema(read("enqueue_bulk.sql"), schema))) {
        command.run(c, v);
      }
      PGNotification[] heard = listener.unwrap(PGConnection.class).getNotifications(10_000);
      assertThat(heard).isNotNull();
      assertThat(heard).extracting(PGNotification::getParameter).contains("default");
    }
    assertThat(
            db.queryLong(
                count(
                    schema,
                    "state = 'available' AND kind = 'bench_noop' AND queue = 'default'"
                        + " AND idempotency_key IS NULL AND scheduled_at <= now()"
                        + " AND args = '{\"single\": true}'")))
        .as("the two single enqueues")
        .isEqualTo(2);
    assertThat(db.queryLong(count(schema, "state = 'available'"))).isEqualTo(32);
  }

  /**
   * Loads 50 jobs with load.sql into a fresh schema, runs the script for two clients in turn, each
   * as many times as run.sh would (batch 7: ceil(50 / 14) + 2), and checks that every job was
   * claimed once and completed under its fence.
   */
  private static void drainAndCheck(String scriptName) throws Exception {
    TestDatabase db = TestDatabase.get();
    String schema = db.newSchemaName();
    new Migrator(db.admin(), schema).up();
    int jobs = 50;
    int batch = 7;
    int clients = 2;
    List<Command> script = commands(inSchema(read(scriptName), schema));
    try (Connection load = db.admin().getConnection();
        Statement st = load.createStatement()) {
      String loadSql = stripComments(inSchema(read("load.sql"), schema)).replace(":n", "" + jobs);
      for (String sql : loadSql.split(";")) {
        if (!sql.isBlank()) {
          st.execute(sql);
        }
      }
    }
    assertThat(db.queryLong(count(schema, "state = 'available'"))).isEqualTo(jobs);

    List<Connection> connections = new ArrayList<>();
    List<Map<String, String>> variables = new ArrayList<>();
    try {
      for (int c = 0; c < clients; c++) {
        connections.add(db.admin().getConnection());
        Map<String, String> v = new HashMap<>();
        v.putAll(
            Map.of(
                "queue", "default",
                "batch", "" + batch,
                "node", "pgbench",
                "lease_ms", "30000",
                "timeout_kinds", "{}",
                "timeout_ms", "{}",
                "default_timeout_ms", "300000",
                "ids", "{}",
                "fences", "{}"));
        variables.add(v);
      }
      int transactions = (jobs + batch * clients - 1) / (batch * clients) + 2;
      for (int t = 0; t < transactions; t++) {
        for (int c = 0; c < clients; c++) {
          for (Command command : script) {
            command.run(connections.get(c), variables.get(c));
          }
        }
      }
    } finally {
      for (Connection c : connections) {
        c.close();
      }
    }

    if (scriptName.endsWith("_delete.sql")) {
      assertThat(db.queryLong(count(schema, "true"))).as("rows left").isZero();
      assertThat(
              db.queryLong(
                  "SELECT sum(n) FROM \""
                      + schema
                      + "\".job_completions WHERE queue = 'default' AND node = 'pgbench'"))
          .isEqualTo(jobs);
      return;
    }
    assertThat(db.queryLong(count(schema, "state = 'completed'"))).isEqualTo(jobs);
    assertThat(db.queryLong(count(schema, "state <> 'completed'"))).isZero();
    assertThat(
            db.queryLong(
                count(
                    schema,
                    "attempt = 1 AND attempted_by = 'pgbench' AND fence > 0"
                        + " AND finalized_at IS NOT NULL AND lease_expires_at IS NULL")))
        .isEqualTo(jobs);
    assertThat(db.queryLong("SELECT count(DISTINCT fence) FROM \"" + schema + "\".job"))
        .isEqualTo(jobs);
  }

  private static String count(String schema, String where) {
    return "SELECT count(*) FROM \"" + schema + "\".job WHERE " + where;
  }

  /** The script for another schema than {@code baton} (the test server is shared). */
  private static String inSchema(String sql, String schema) {
    return sql.replace("\"baton\".", "\"" + schema + "\".");
  }

  // ---------------------------------------------------------------- HolderStore's statements

  /** The text of a statement HolderStore prepares for schema {@code baton} (a private field). */
  private static String holderStoreSql(String field) throws Exception {
    return holderStoreSql(field, "KEPT");
  }

  /** The same, of a store whose completions keep ("KEPT") or delete ("DELETED") their rows. */
  private static String holderStoreSql(String field, String completedRows) throws Exception {
    HolderStore store =
        new HolderStore(SchemaName.of("baton"), HolderStore.CompletedRows.valueOf(completedRows));
    Field f;
    try {
      f = HolderStore.class.getDeclaredField(field);
    } catch (NoSuchFieldException e) {
      throw new AssertionError(
          "HolderStore has no field "
              + field
              + " any more: its statements were renamed or restructured; update the pgbench"
              + " scripts and this test to match",
          e);
    }
    f.setAccessible(true);
    return (String) f.get(store);
  }

  /** The text of a statement EnqueueStore prepares for schema {@code baton} (a private field). */
  private static String enqueueStoreSql(String field) throws Exception {
    EnqueueStore store = new EnqueueStore(SchemaName.of("baton"));
    Field f = EnqueueStore.class.getDeclaredField(field);
    f.setAccessible(true);
    return (String) f.get(store);
  }

  /** {@code sql} with its {@code ?} binds replaced, in order, by {@code :name}. */
  private static String withVariables(String sql, List<String> names) {
    return withBinds(sql, names.stream().map(n -> ":" + n).toList());
  }

  /** {@code sql} with its {@code ?} binds replaced, in order, by {@code binds}. */
  private static String withBinds(String sql, List<String> names) {
    StringBuilder sb = new StringBuilder();
    int next = 0;
    char quote = 0;
    for (int i = 0; i < sql.length(); i++) {
      char ch = sql.charAt(i);
      if (quote != 0) {
        quote = ch == quote ? 0 : quote;
      } else if (ch == '\'' || ch == '"') {
        quote = ch;
      } else if (ch == '?') {
        assertThat(next)
            .as("The store's statement has more binds than the script has variables for:\n" + sql)
            .isLessThan(names.size());
        sb.append(names.get(next++));
        continue;
      }
      sb.append(ch);
    }
    assertThat(next)
        .as("The store's statement has fewer binds than the script has variables for:\n" + sql)
        .isEqualTo(names.size());
    return sb.toString();
  }

  private static void assertSameSql(String what, String actual, String expected) {
    String a = normalize(actual);
    String e = normalize(expected);
    int at = 0;
    while (at < Math.min(a.length(), e.length()) && a.charAt(at) == e.charAt(at)) {
      at++;
    }
    assertThat(a)
        .as(
            "%s must be the store's SQL (comments and spacing aside); they differ at character %d:"
                + "%n  script:   ...%s%n  store:    ...%s%nIf the store changed, update the script."
                + " The store's statement, with the script's variables:%n%s%n",
            what, at, excerpt(a, at), excerpt(e, at), expected)
        .isEqualTo(e);
  }

  private static String excerpt(String s, int at) {
    return s.substring(Math.max(0, at - 40), Math.min(s.length(), at + 60));
  }

  // ---------------------------------------------------------------- SQL text

  /** A statement {@code WITH <ctes> <main>}, split after its last CTE. */
  record Split(String ctes, String main) {}

  private static Split split(String sql) {
    String s = normalize(sql);
    assertThat(s).as("a statement with CTEs").startsWith("WITH ");
    int i = "WITH ".length();
    while (true) {
      int open = s.indexOf('(', i);
      assertThat(open).as("a CTE body in: " + s).isPositive();
      i = closing(s, open) + 1;
      while (i < s.length() && s.charAt(i) == ' ') {
        i++;
      }
      if (i < s.length() && s.charAt(i) == ',') {
        i++;
      } else {
        return new Split(s.substring("WITH ".length(), i).trim(), s.substring(i).trim());
      }
    }
  }

  /** The index of the parenthesis closing the one at {@code open}, quotes skipped. */
  private static int closing(String s, int open) {
    int depth = 0;
    char quote = 0;
    for (int i = open; i < s.length(); i++) {
      char ch = s.charAt(i);
      if (quote != 0) {
        quote = ch == quote ? 0 : quote;
      } else if (ch == '\'' || ch == '"') {
        quote = ch;
      } else if (ch == '(') {
        depth++;
      } else if (ch == ')' && --depth == 0) {
        return i;
      }
    }
    throw new AssertionError("unbalanced parentheses in: " + s);
  }

  /** Comments removed, whitespace runs made one space, none inside parentheses' edges. */
  static String normalize(String sql) {
    return stripComments(sql)
        .replaceAll("\\s+", " ")
        .replace("( ", "(")
        .replace(" )", ")")
        .trim()
        .replaceAll(";$", "")
        .trim();
  }

  /** {@code --} comments removed (outside quotes). */
  private static String stripComments(String sql) {
    StringBuilder sb = new StringBuilder();
    char quote = 0;
    for (int i = 0; i < sql.length(); i++) {
      char ch = sql.charAt(i);
      if (quote != 0) {
        quote = ch == quote ? 0 : quote;
      } else if (ch == '\'' || ch == '"') {
        quote = ch;
      } else if (ch == '-' && i + 1 < sql.length() && sql.charAt(i + 1) == '-') {
        while (i < sql.length() && sql.charAt(i) != '\n') {
          i++;
        }
        sb.append('\n');
        continue;
      }
      sb.append(ch);
    }
    return sb.toString();
  }

  // ---------------------------------------------------------------- pgbench scripts

  private static String read(String name) throws IOException {
    return Files.readString(DIR.resolve(name));
  }

  /** The SQL commands of a pgbench script (each ends with ; or a \gset line). */
  private static List<String> sqlCommands(String script) {
    return commands(script).stream().map(Command::sql).toList();
  }

  private static List<Command> commands(String script) {
    List<Command> out = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : script.split("\n", -1)) {
      String code = stripComments(line).trim();
      if (code.startsWith("\\")) {
        assertThat(code).as("the only meta command the scripts use").isEqualTo("\\gset");
        out.add(new Command(current.toString(), true));
        current.setLength(0);
        continue;
      }
      current.append(line).append('\n');
      if (code.endsWith(";")) {
        out.add(new Command(current.toString(), false));
        current.setLength(0);
      }
    }
    assertThat(stripComments(current.toString())).as("text after the last command").isBlank();
    return out;
  }

  /** One SQL command of a script, run as pgbench -M prepared runs it. */
  record Command(String sql, boolean gset) {
    private static final Pattern VARIABLE = Pattern.compile("(?<![:\\w]):([a-z_][a-z0-9_]*)");

    /**
     * Runs it on {@code c} (autocommit): each {@code :name} a parameter of unspecified type set to
     * the variable's text, as pgbench binds it; with {@code \gset}, the one row's columns become
     * variables.
     */
    void run(Connection c, Map<String, String> variables) throws SQLException {
      List<String> names = new ArrayList<>();
      Matcher m = VARIABLE.matcher(stripComments(sql));
      StringBuilder text = new StringBuilder();
      while (m.find()) {
        names.add(m.group(1));
        m.appendReplacement(text, "?");
      }
      m.appendTail(text);
      try (PreparedStatement ps = c.prepareStatement(normalize(text.toString()))) {
        for (int i = 0; i < names.size(); i++) {
          assertThat(variables).as("variables").containsKey(names.get(i));
          ps.setObject(i + 1, variables.get(names.get(i)), Types.OTHER);
        }
        if (!gset) {
          ps.execute();
          return;
        }
        try (ResultSet rs = ps.executeQuery()) {
          assertThat(rs.next()).as("\\gset needs one row").isTrue();
          ResultSetMetaData md = rs.getMetaData();
          for (int i = 1; i <= md.getColumnCount(); i++) {
            variables.put(md.getColumnLabel(i), rs.getString(i));
          }
          assertThat(rs.next()).as("\\gset needs exactly one row").isFalse();
        }
      }
    }
  }
}
