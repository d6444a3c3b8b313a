package dev.baton.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.InvalidConfigException;
import dev.baton.InvalidJobException;
import dev.baton.inbox.Inbox.Outcome;
import dev.baton.testing.TestDatabase;
import java.sql.Connection;
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
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

class InboxTest {
  private static final TestDatabase DB = TestDatabase.get();
  private static final int THREADS = 20;
  private static HikariDataSource ds;
  private static String schema;
  private static Inbox inbox;

  @BeforeAll
  static void migrate() {
    ds = DB.dataSource(THREADS + 2);
    schema = DB.newSchemaName();
    assertThat(Inbox.migrator(ds, schema).up()).containsExactly(1);
    inbox = new Inbox(schema);
    warmUp(ds, THREADS);
  }

  /** Opens {@code n} connections once, so concurrent tests do not wait for the pool to grow. */
  private static void warmUp(HikariDataSource ds, int n) {
    List<Connection> held = new ArrayList<>();
    try {
      for (int i = 0; i < n; i++) {
        held.add(ds.getConnection());
      }
      for (Connection c : held) {
        c.close();
      }
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException("cannot open " + n + " connections", e);
    }
  }

  @AfterAll
  static void closePool() {
    ds.close();
  }

  @Test
  void firstDeliveryAppliesRepeatsAreDuplicatesAndLowerFencesAreStale() throws Exception {
    String key = "order-1";
    assertThat(applyCommitted(key, 5)).isEqualTo(Outcome.APPLY);
    assertThat(applyCommitted(key, 5)).as("same key, same fence").isEqualTo(Outcome.DUPLICATE);
    assertThat(applyCommitted(key, 4)).as("lower fence").isEqualTo(Outcome.STALE);
    assertThat(applyCommitted(key, 7)).as("higher fence").isEqualTo(Outcome.DUPLICATE);
    assertThat(applyCommitted(key, 5))
        .as("the old fence, after a higher one")
        .isEqualTo(Outcome.STALE);
    assertThat(applyCommitted(key, 7)).as("the highest fence again").isEqualTo(Outcome.DUPLICATE);
    assertThat(DB.queryLong(rows(key))).isEqualTo(1);
    assertThat(DB.queryLong(fence(key))).isEqualTo(7);
  }

  @Test
  void deliveryRolledBackWithTheCallersTransactionLeavesNoTrace() throws Exception {
    String key = "order-rolled-back";
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      assertThat(inbox.apply(c, key, 3)).isEqualTo(Outcome.APPLY);
      c.rollback();
    }
    assertThat(DB.queryLong(rows(key))).isZero();
    assertThat(applyCommitted(key, 1))
        .as("after the rollback, a lower fence")
        .isEqualTo(Outcome.APPLY);
  }

  @Test
  void concurrentDeliveriesOfOneKeyApplyExactlyOnce() throws Exception {
    String key = "order-concurrent";
    CyclicBarrier together = new CyclicBarrier(THREADS);
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      List<Future<Outcome>> futures = new ArrayList<>();
      for (int i = 0; i < THREADS; i++) {
        futures.add(
            pool.submit(
                () -> {
                  try (Connection c = ds.getConnection()) {
                    c.setAutoCommit(false);
                    together.await(30, TimeUnit.SECONDS);
                    Outcome o = inbox.apply(c, key, 42);
                    c.commit();
                    return o;
                  }
                }));
      }
      List<Outcome> outcomes = new ArrayList<>();
      for (Future<Outcome> f : futures) {
        outcomes.add(f.get(60, TimeUnit.SECONDS));
      }
      assertThat(outcomes).filteredOn(o -> o == Outcome.APPLY).hasSize(1);
      assertThat(outcomes).filteredOn(o -> o == Outcome.DUPLICATE).hasSize(THREADS - 1);
    } finally {
      pool.shutdownNow();
    }
    assertThat(DB.queryLong(rows(key))).isEqualTo(1);
  }

  @Test
  void concurrentDeliveriesWithDifferentFencesApplyOnceAndKeepTheHighestFence() throws Exception {
    String key = "order-concurrent-fences";
    CyclicBarrier together = new CyclicBarrier(THREADS);
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      List<Future<Outcome>> futures = new ArrayList<>();
      for (int i = 1; i <= THREADS; i++) {
        long fence = i;
        futures.add(
            pool.submit(
                () -> {
                  try (Connection c = ds.getConnection()) {
                    c.setAutoCommit(false);
                    together.await(30, TimeUnit.SECONDS);
                    Outcome o = inbox.apply(c, key, fence);
                    c.commit();
                    return o;
                  }
                }));
      }
      List<Outcome> outcomes = new ArrayList<>();
      for (Future<Outcome> f : futures) {
        outcomes.add(f.get(60, TimeUnit.SECONDS));
      }
      assertThat(outcomes).filteredOn(o -> o == Outcome.APPLY).hasSize(1);
      // the delivery with the highest fence is never refused as stale
      assertThat(outcomes.get(THREADS - 1)).isIn(Outcome.APPLY, Outcome.DUPLICATE);
    } finally {
      pool.shutdownNow();
    }
    assertThat(DB.queryLong(rows(key))).isEqualTo(1);
    assertThat(DB.queryLong(fence(key))).isEqualTo(THREADS);
  }

  @Test
  void invalidSchemaNameIsRejected() {
    assertThatThrownBy(() -> new Inbox("Bad-Name"))
        .isInstanceOfSatisfying(
            InvalidConfigException.class, e -> assertThat(e.property()).isEqualTo("schema"));
  }

  @ParameterizedTest
  @NullSource
  @ValueSource(strings = {"", " ", "   \t"})
  void nullOrBlankKeyIsRejected(String key) throws Exception {
    try (Connection c = ds.getConnection()) {
      assertThatThrownBy(() -> inbox.apply(c, key, 1))
          .isInstanceOf(InvalidJobException.class)
          .hasMessageContaining("key");
    }
  }

  @Test
  void keyLongerThan255CharactersIsRejectedAnd255IsAccepted() throws Exception {
    try (Connection c = ds.getConnection()) {
      assertThatThrownBy(() -> inbox.apply(c, "k".repeat(300), 1))
          .isInstanceOf(InvalidJobException.class)
          .hasMessageContaining("300");
      assertThatThrownBy(() -> inbox.apply(c, "k".repeat(256), 1))
          .isInstanceOf(InvalidJobException.class);
      assertThat(inbox.apply(c, "k".repeat(255), 1)).isEqualTo(Outcome.APPLY);
    }
    assertThat(
            DB.queryLong(
                "SELECT count(*) FROM \"" + schema + "\".inbox WHERE idempotency_key LIKE 'kkk%'"))
        .isEqualTo(1);
  }

  private static Outcome applyCommitted(String key, long fence) throws Exception {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      Outcome o = inbox.apply(c, key, fence);
      c.commit();
      return o;
    }
  }

  private static String fence(String key) {
    return "SELECT fence FROM \"" + schema + "\".inbox WHERE idempotency_key = '" + key + "'";
  }

  private static String rows(String key) {
    return "SELECT count(*) FROM \"" + schema + "\".inbox WHERE idempotency_key = '" + key + "'";
  }
}
