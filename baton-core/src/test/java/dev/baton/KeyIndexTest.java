package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.admin.BatonAdmin;
import dev.baton.internal.db.ClaimedJob;
import dev.baton.internal.db.Finish;
import dev.baton.internal.db.HolderStore;
import dev.baton.internal.db.SchemaName;
import dev.baton.testing.Fixture;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A queue limited per key has an index of its available jobs by key (schema version 13), made when
 * the limit is set and dropped when it is removed; its claim reads the keys waiting and the jobs it
 * takes from it, not the whole backlog; and without the index (never made, or dropped) the claim
 * still keeps the limit, ranking the backlog instead.
 */
class KeyIndexTest {

  private static final String QUEUE = "keyed";

  @Test
  void aLimitPerKeyHasItsIndexWhileSetAndNoOtherQueueHasOne() {
    try (Fixture f = new Fixture()) {
      BatonAdmin admin = new BatonAdmin(f.dataSource(), f.schema());
      admin.limitConcurrency("plain-limited", 5, "t");
      assertThat(keyIndexes(f)).as("a queue-wide limit needs no key index").isEmpty();

      admin.limitConcurrencyPerKey(QUEUE, "customer", 1, "t");
      assertThat(keyIndexes(f)).containsExactly(indexName(f, QUEUE, "customer") + " valid");

      admin.limitConcurrencyPerKey(QUEUE, "tenant", 1, "t");
      assertThat(keyIndexes(f))
          .as("a new key field replaces the index")
          .containsExactly(indexName(f, QUEUE, "tenant") + " valid");

      admin.limitRatePerKey("rated", "tenant", 10, Duration.ofSeconds(1), "t");
      assertThat(keyIndexes(f)).hasSize(2);

      admin.removeConcurrencyLimitPerKey(QUEUE, "t");
      admin.removeRateLimit("rated", "t");
      assertThat(keyIndexes(f)).as("removing the limits drops their indexes").isEmpty();
    }
  }

  @Test
  void theKeyedClaimReadsTheKeysWaitingNotTheBacklog() throws Exception {
    try (Fixture f = new Fixture()) {
      // 20,000 jobs of key A, then 10 of each of 63 other keys
      f.execute(
          "INSERT INTO %s.job (queue, kind, args) SELECT '"
              + QUEUE
              + "', 'ping', jsonb_build_object('customer', 'A') FROM generate_series(1, 20000)");
      f.execute(
          "INSERT INTO %s.job (queue, kind, args) SELECT '"
              + QUEUE
              + "', 'ping', jsonb_build_object('customer', 'k' || (g % 63))"
              + " FROM generate_series(1, 630) g");
      new BatonAdmin(f.dataSource(), f.schema()).limitConcurrencyPerKey(QUEUE, "customer", 1, "t");
      long withIndex = pickRows(f);
      long claim = claimRows(f, false);
      long claimGeneric = claimRows(f, true);

      f.execute("DROP INDEX %s." + indexName(f, QUEUE, "customer"));
      long withoutIndex = pickRows(f);
      System.out.printf(
          "keyed pick over 20,630 jobs of 64 keys: %d rows read with the key index (the whole"
              + " claim statement: %d, with a generic plan %d), %d without%n",
          withIndex, claim, claimGeneric, withoutIndex);
      // a claim of 16 visits 32 keys: one probe to find each key and one to take its job (128 rows
      // here; a walk of 64 keys read 256)
      assertThat(withIndex).as("rows read by the pick with the key index").isLessThan(200);
      // the claim locks and updates the picked jobs through their ids, reading no other job
      assertThat(claim).as("rows read by the whole keyed claim statement").isLessThan(300);
      assertThat(claimGeneric).as("the same with a generic plan").isLessThan(300);
      assertThat(withoutIndex).as("the same pick ranking the whole backlog").isGreaterThan(20_000);
    }
  }

  @Test
  void aSessionPlansTheKeyWalkOnceAndReusesItsPlan() throws Exception {
    try (Fixture f = new Fixture()) {
      f.execute(
          "INSERT INTO %s.job (queue, kind, args) SELECT '"
              + QUEUE
              + "', 'ping', jsonb_build_object('customer', 'k' || (g % 8))"
              + " FROM generate_series(1, 80) g");
      new BatonAdmin(f.dataSource(), f.schema()).limitConcurrencyPerKey(QUEUE, "customer", 1, "t");
      try (Connection c = f.dataSource().getConnection();
          Statement st = c.createStatement()) {
        for (int i = 0; i < 3; i++) {
          pick(st, f, 4);
        }
        // the cursor moved after the first pick: one statement for the walk without a cursor, one
        // for the walk from it; each planned once, generic, and run from its plan after
        assertThat(
                longOf(
                    st,
                    "SELECT count(*) FROM pg_prepared_statements"
                        + " WHERE name LIKE 'baton\\_keyed\\_pick\\_%' AND custom_plans = 0"
                        + " AND strpos(statement, '"
                        + f.schema()
                        + "') > 0"))
            .as("prepared walks of this session, generic plans only")
            .isEqualTo(2);
        assertThat(
                longOf(
                    st,
                    "SELECT sum(generic_plans) FROM pg_prepared_statements"
                        + " WHERE name LIKE 'baton\\_keyed\\_pick\\_%' AND strpos(statement, '"
                        + f.schema()
                        + "') > 0"))
            .as("runs of the walk from a prepared plan")
            .isEqualTo(3);
      }
    }
  }

  @Test
  void withoutItsIndexTheKeyedClaimStillKeepsTheLimitAndTakesKeysInTurn() {
    try (Fixture f = new Fixture()) {
      f.execute(
          "INSERT INTO %s.job (queue, kind, args) SELECT '"
              + QUEUE
              + "', 'ping', jsonb_build_object('customer', 'A') FROM generate_series(1, 500)");
      f.execute(
          "INSERT INTO %s.job (queue, kind, args) SELECT '"
              + QUEUE
              + "', 'ping', jsonb_build_object('customer', 'B') FROM generate_series(1, 5)");
      BatonAdmin admin = new BatonAdmin(f.dataSource(), f.schema());
      admin.limitConcurrencyPerKey(QUEUE, "customer", 2, "t");
      HolderStore store = new HolderStore(SchemaName.of(f.schema()));
      List<ClaimedJob> withIndex = store.claimKeyed(f.dataSource(), params(10));
      f.execute("UPDATE %s.job SET state = 'available', attempt = 0 WHERE state = 'running'");
      f.execute("DROP INDEX %s." + indexName(f, QUEUE, "customer"));
      List<ClaimedJob> withoutIndex = store.claimKeyed(f.dataSource(), params(10));
      for (List<ClaimedJob> claimed : List.of(withIndex, withoutIndex)) {
        assertThat(claimed).extracting(j -> j.args()).hasSize(4);
        assertThat(claimed.stream().filter(j -> j.args().contains("\"B\"")).count())
            .as("jobs of B claimed with A's backlog before them")
            .isEqualTo(2);
      }
      assertThat(ids(withoutIndex)).isEqualTo(ids(withIndex));
    }
  }

  /**
   * More keys waiting than a claim visits (32): the claims move round the keys, so keys late in key
   * order get their turn although the first 64 keys never run out of jobs.
   */
  @Test
  void withMoreKeysWaitingThanAClaimVisitsEveryKeyGetsItsTurn() {
    try (Fixture f = new Fixture()) {
      // 64 keys first in key order with 100 jobs each, then 100 keys of one job each
      f.execute(
          "INSERT INTO %s.job (queue, kind, args) SELECT '"
              + QUEUE
              + "', 'ping', jsonb_build_object('customer', 'a' || lpad((g % 64)::text, 2, '0'))"
              + " FROM generate_series(1, 6400) g");
      f.execute(
          "INSERT INTO %s.job (queue, kind, args) SELECT '"
              + QUEUE
              + "', 'ping', jsonb_build_object('customer', 'z' || g) FROM generate_series(1, 100) g");
      new BatonAdmin(f.dataSource(), f.schema()).limitConcurrencyPerKey(QUEUE, "customer", 1, "t");
      HolderStore store = new HolderStore(SchemaName.of(f.schema()));
      int claims = 0;
      int lateKeys = 0;
      while (lateKeys < 100 && claims < 200) {
        List<ClaimedJob> got = claimAndComplete(store, f, 16);
        claims++;
        lateKeys += (int) got.stream().filter(j -> j.args().contains("\"z")).count();
      }
      System.out.printf("100 keys after 64 busy ones: all ran within %d claims of 16%n", claims);
      // the 164 keys take turns 16 at a time: one round is ceil(164 / 16) = 11 claims
      assertThat(claims).as("claims until every late key ran").isLessThanOrEqualTo(22);
    }
  }

  /**
   * Weighted fair share: keys A (weight 3) and B (weight 1) both with long backlogs, claims of 4
   * slots take 3 of A and 1 of B each, through the key index and without it.
   */
  @Test
  void aKeyOfWeightThreeTakesThreeJobsATurn() {
    try (Fixture f = new Fixture()) {
      for (String key : List.of("A", "B")) {
        f.execute(
            "INSERT INTO %s.job (queue, kind, args) SELECT '"
                + QUEUE
                + "', 'ping', jsonb_build_object('customer', '"
                + key
                + "') FROM generate_series(1, 100)");
      }
      BatonAdmin admin = new BatonAdmin(f.dataSource(), f.schema());
      admin.limitConcurrencyPerKey(QUEUE, "customer", 1_000, "t");
      admin.weighKey(QUEUE, "A", 3, "t");
      admin.weighKey(QUEUE, "C", 5, "t");
      admin.weighKey(QUEUE, "C", 1, "t");
      assertThat(admin.keyWeights(QUEUE)).containsExactly(java.util.Map.entry("A", 3));
      HolderStore store = new HolderStore(SchemaName.of(f.schema()));
      for (boolean withIndex : new boolean[] {true, false}) {
        if (!withIndex) {
          f.execute("DROP INDEX %s." + indexName(f, QUEUE, "customer"));
        }
        int a = 0;
        int b = 0;
        for (int claim = 0; claim < 10; claim++) {
          List<ClaimedJob> got = claimAndComplete(store, f, 4);
          a += (int) got.stream().filter(j -> j.args().contains("\"A\"")).count();
          b += (int) got.stream().filter(j -> j.args().contains("\"B\"")).count();
        }
        assertThat(new int[] {a, b})
            .as("jobs of A and B, key index %s", withIndex)
            .containsExactly(30, 10);
      }
      // weights written by hand out of range or not numbers weigh 1: no claim fails on them
      f.execute(
          "UPDATE %s.queue SET key_weights = '{\"A\": 0, \"B\": \"x\"}' WHERE name = '"
              + QUEUE
              + "'");
      admin.limitConcurrencyPerKey(QUEUE, "customer", 1_000, "t"); // the index made again
      for (boolean withIndex : new boolean[] {true, false}) {
        if (!withIndex) {
          f.execute("DROP INDEX %s." + indexName(f, QUEUE, "customer"));
        }
        assertThat(store.claimKeyed(f.dataSource(), params(4)))
            .as("jobs claimed, key index %s", withIndex)
            .hasSize(4);
      }
    }
  }

  /** A keyed claim of {@code slots} jobs, each completed at once; the jobs it claimed. */
  private static List<ClaimedJob> claimAndComplete(HolderStore store, Fixture f, int slots) {
    List<ClaimedJob> got = store.claimKeyed(f.dataSource(), params(slots));
    List<Finish> done = new java.util.ArrayList<>();
    got.forEach(j -> done.add(Finish.completed(j.id(), j.fence())));
    store.finishIfHeld(f.dataSource(), done);
    return got;
  }

  private static Set<Long> ids(List<ClaimedJob> jobs) {
    Set<Long> ids = new HashSet<>();
    jobs.forEach(j -> ids.add(j.id()));
    return ids;
  }

  /**
   * The rows keyed_pick reads for 16 jobs, nothing running: index entries and heap rows returned by
   * its scans of the job table and its indexes, from the transaction's own statistics counters.
   */
  private static long pickRows(Fixture f) throws Exception {
    return rowsRead(
        f,
        false,
        (c, st) -> {
          pick(st, f, 16);
        });
  }

  /**
   * The rows the whole keyed claim statement of 16 jobs reads (the pick, the lock of the picked
   * jobs, their update), counted as {@link #pickRows} does; planned for its parameters, or with a
   * generic plan (as a statement prepared on the server may be).
   */
  private static long claimRows(Fixture f, boolean generic) throws Exception {
    return rowsRead(
        f,
        generic,
        (c, st) -> {
          // The claim runs on this connection, in its transaction: its commit and close do nothing.
          Connection held =
              (Connection)
                  java.lang.reflect.Proxy.newProxyInstance(
                      KeyIndexTest.class.getClassLoader(),
                      new Class<?>[] {Connection.class},
                      (proxy, method, args) ->
                          switch (method.getName()) {
                            case "commit", "close" -> null;
                            default -> {
                              try {
                                yield method.invoke(c, args);
                              } catch (java.lang.reflect.InvocationTargetException e) {
                                throw e.getCause();
                              }
                            }
                          });
          javax.sql.DataSource one =
              (javax.sql.DataSource)
                  java.lang.reflect.Proxy.newProxyInstance(
                      KeyIndexTest.class.getClassLoader(),
                      new Class<?>[] {javax.sql.DataSource.class},
                      (proxy, method, args) -> {
                        if (method.getName().equals("getConnection")) {
                          return held;
                        }
                        throw new UnsupportedOperationException(method.getName());
                      });
          HolderStore store = new HolderStore(SchemaName.of(f.schema()));
          assertThat(store.claimKeyed(one, params(16))).as("jobs claimed").hasSize(16);
        });
  }

  /** Runs keyed_pick of {@code n} jobs, limit 1 per key, nothing running; checks it took n. */
  private static void pick(Statement st, Fixture f, int n) throws java.sql.SQLException {
    try (ResultSet rs =
        st.executeQuery(
            "SELECT cardinality(\""
                + f.schema()
                + "\".keyed_pick('"
                + QUEUE
                + "', '{\"field\": \"customer\", \"limit\": 1, \"running\": {}}', "
                + n
                + "))")) {
      rs.next();
      assertThat(rs.getInt(1)).as("jobs picked").isEqualTo(n);
    }
  }

  /** Work on a connection and its statement, in a transaction. */
  private interface InTransaction {
    void run(Connection c, Statement st) throws Exception;
  }

  /**
   * The rows {@code work} reads from the job table and its indexes, in a transaction rolled back
   * after (with generic plans only when {@code generic}).
   */
  private static long rowsRead(Fixture f, boolean generic, InTransaction work) throws Exception {
    String job = "'\"" + f.schema() + "\".job'::regclass";
    String rowsRead =
        "SELECT sum(pg_stat_get_xact_tuples_returned(r.oid) + pg_stat_get_xact_tuples_fetched(r.oid))"
            + " FROM pg_class r WHERE r.oid = "
            + job
            + " OR r.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = "
            + job
            + ")";
    try (Connection c = f.dataSource().getConnection();
        Statement st = c.createStatement()) {
      c.setAutoCommit(false);
      try {
        if (generic) {
          st.execute("SET LOCAL plan_cache_mode = force_generic_plan");
        }
        long before = longOf(st, rowsRead);
        work.run(c, st);
        return longOf(st, rowsRead) - before;
      } finally {
        c.rollback();
        c.setAutoCommit(true);
      }
    }
  }

  private static long longOf(Statement st, String sql) throws java.sql.SQLException {
    try (ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static HolderStore.ClaimParams params(int slots) {
    return new HolderStore.ClaimParams(
        QUEUE,
        slots,
        "n",
        Duration.ofMinutes(1),
        new String[0],
        new Long[0],
        Duration.ofMinutes(1));
  }

  private static String indexName(Fixture f, String queue, String field) {
    try (Connection c = f.dataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT \"" + f.schema() + "\".key_index_name('" + queue + "', '" + field + "')")) {
      rs.next();
      return rs.getString(1);
    } catch (java.sql.SQLException e) {
      throw new AssertionError(e);
    }
  }

  /** Each key index of the job table, as "name valid" or "name invalid". */
  private static List<String> keyIndexes(Fixture f) {
    try (Connection c = f.dataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT x.relname || CASE WHEN i.indisvalid THEN ' valid' ELSE ' invalid' END"
                    + " FROM pg_index i JOIN pg_class x ON x.oid = i.indexrelid"
                    + " WHERE i.indrelid = '\""
                    + f.schema()
                    + "\".job'::regclass AND x.relname LIKE 'job\\_key\\_%' ORDER BY 1")) {
      List<String> out = new java.util.ArrayList<>();
      while (rs.next()) {
        out.add(rs.getString(1));
      }
      return out;
    } catch (java.sql.SQLException e) {
      throw new AssertionError(e);
    }
  }
}
