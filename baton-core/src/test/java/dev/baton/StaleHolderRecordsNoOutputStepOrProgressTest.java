package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.internal.db.ClaimedJob;
import dev.baton.internal.db.HolderStore;
import dev.baton.internal.db.SchemaName;
import dev.baton.testing.Claims;
import dev.baton.testing.Fixture;
import dev.baton.testing.TestLeader;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Invariant 12, its last clause: a stale holder records no output, step or progress. Holder A
 * claims a job, stalls until its lease runs out, the rescuer returns the job and holder B claims
 * it; each write A then makes with its old fence changes nothing (the whole row is compared), and
 * the same write by B goes through. One test per write.
 */
class StaleHolderRecordsNoOutputStepOrProgressTest {

  record Work(int n) implements JobArgs {}

  /** The two holders of one job: A, whose lease was rescued, and B, who claimed it after. */
  private record Holders(long id, ClaimedJob stale, ClaimedJob current) {}

  private static Holders rescuedAndReclaimed(Fixture f, HolderStore store) {
    long id = f.reader().enqueue(new Work(1)).job().id();
    ClaimedJob a = store.claim(f.dataSource(), Claims.by("a", 1)).get(0);
    TestLeader leader = TestLeader.elect(f.dataSource(), f.schema());
    leader.advance(Duration.ofMinutes(6));
    assertThat(leader.rescue()).isEqualTo(1);
    assertThat(leader.schedule()).isEqualTo(1);
    ClaimedJob b = store.claim(f.dataSource(), Claims.by("b", 1)).get(0);
    assertThat(b.fence()).isGreaterThan(a.fence());
    return new Holders(id, a, b);
  }

  @Test
  void staleHolderCannotRecordAnOutput() throws SQLException {
    try (Fixture f = new Fixture();
        Connection c = f.dataSource().getConnection()) {
      HolderStore store = new HolderStore(SchemaName.of(f.schema()));
      Holders h = rescuedAndReclaimed(f, store);
      String before = row(f, h.id());
      assertThat(store.recordOutputIfHeld(c, h.id(), h.stale().fence(), "{\"by\":\"a\"}"))
          .isFalse();
      assertThat(row(f, h.id())).isEqualTo(before);

      assertThat(store.recordOutputIfHeld(c, h.id(), h.current().fence(), "{\"by\":\"b\"}"))
          .isTrue();
      assertThat(f.db().queryString(sql(f, "SELECT output::text FROM %s.job WHERE id = ", h)))
          .isEqualTo("{\"by\": \"b\"}");
    }
  }

  @Test
  void staleHolderCannotRecordAStep() throws SQLException {
    try (Fixture f = new Fixture();
        Connection c = f.dataSource().getConnection()) {
      HolderStore store = new HolderStore(SchemaName.of(f.schema()));
      Holders h = rescuedAndReclaimed(f, store);
      String before = row(f, h.id());
      assertThat(store.recordStepIfHeld(c, h.id(), h.stale().fence(), "charge", "\"a\"")).isFalse();
      assertThat(row(f, h.id())).isEqualTo(before);
      assertThat(store.readStepsIfHeld(c, h.id(), h.stale().fence())).isNull();

      assertThat(store.recordStepIfHeld(c, h.id(), h.current().fence(), "charge", "\"b\""))
          .isTrue();
      assertThat(store.readStepsIfHeld(c, h.id(), h.current().fence()))
          .contains("\"charge\": {\"at\":")
          .contains("\"result\": \"b\"");
    }
  }

  @Test
  void staleHolderCannotRecordProgress() throws SQLException {
    try (Fixture f = new Fixture();
        Connection c = f.dataSource().getConnection()) {
      HolderStore store = new HolderStore(SchemaName.of(f.schema()));
      Holders h = rescuedAndReclaimed(f, store);
      String before = row(f, h.id());
      assertThat(store.recordProgressIfHeld(c, h.id(), h.stale().fence(), 0.9, "a")).isFalse();
      assertThat(row(f, h.id())).isEqualTo(before);

      assertThat(store.recordProgressIfHeld(c, h.id(), h.current().fence(), 0.25, "b")).isTrue();
      assertThat(
              f.db()
                  .queryString(
                      sql(
                          f,
                          "SELECT progress ->> 'fraction' || ' ' || (progress ->> 'message')"
                              + " FROM %s.job WHERE id = ",
                          h)))
          .isEqualTo("0.25 b");
    }
  }

  private static String sql(Fixture f, String prefix, Holders h) {
    return prefix.replace("%s", "\"" + f.schema() + "\"") + h.id();
  }

  private static String row(Fixture f, long id) {
    return f.db()
        .queryString(
            "SELECT row_to_json(j)::text FROM \"" + f.schema() + "\".job j WHERE id = " + id);
  }
}
