package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.internal.db.ClaimedJob;
import dev.baton.internal.db.Finish;
import dev.baton.internal.db.HolderStore;
import dev.baton.internal.db.SchemaName;
import dev.baton.testing.Claims;
import dev.baton.testing.Fixture;
import dev.baton.testing.TestLeader;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Invariant 3: at most one holder can change a job — every write with an old fence changes nothing.
 * Drives the store's statements directly, one holder at a time, and compares the whole row before
 * and after each stale write. Completions that delete their row (completedRetention zero) are
 * fenced the same way.
 */
class OldFenceChangesNothingTest {

  record Work(int n) implements JobArgs {}

  @ParameterizedTest
  @EnumSource(HolderStore.CompletedRows.class)
  void everyWriteOfAHolderThatLostTheJobChangesNothing(HolderStore.CompletedRows completed)
      throws Exception {
    try (Fixture f = new Fixture()) {
      HolderStore store = new HolderStore(SchemaName.of(f.schema()), completed);
      long id = f.reader().enqueue(new Work(1)).job().id();

      ClaimedJob first = store.claim(f.dataSource(), Claims.by("a", 1)).get(0);
      // A's lease runs out (it stalled); the rescuer returns the job; B claims it.
      TestLeader leader = TestLeader.elect(f.dataSource(), f.schema());
      leader.advance(Duration.ofMinutes(6));
      assertThat(leader.rescue()).isEqualTo(1);
      assertThat(leader.schedule()).isEqualTo(1);
      ClaimedJob second = store.claim(f.dataSource(), Claims.by("b", 1)).get(0);
      assertThat(second.id()).isEqualTo(id);
      assertThat(second.fence()).isGreaterThan(first.fence());

      String before = row(f, id);
      long a = first.fence();
      List<Finish> staleWrites =
          List.of(
              Finish.completed(id, a),
              new Finish(id, a, "completed", null, null, 0, "{\"x\":1}"),
              new Finish(id, a, "retryable", 1000L, "{\"error\":\"x\"}", 0, null),
              new Finish(id, a, "discarded", null, "{\"error\":\"x\"}", 0, null),
              new Finish(id, a, "cancelled", null, null, 0, null),
              new Finish(id, a, "scheduled", 5000L, null, -1, "{\"snoozes\":1}"),
              new Finish(id, a, "available", 0L, null, -1, null));
      for (Finish w : staleWrites) {
        assertThat(store.finishIfHeld(f.dataSource(), List.of(w))).as(w.state()).isEmpty();
        assertThat(row(f, id)).as("row after stale " + w.state()).isEqualTo(before);
      }
      HolderStore.Heartbeat beat =
          store.heartbeatIfHeld(
              f.dataSource(), new long[] {id}, new long[] {a}, Duration.ofHours(1));
      assertThat(beat.held(id)).isFalse();
      assertThat(store.extendIfHeld(f.dataSource(), id, a, Duration.ofHours(1), Duration.ZERO))
          .isNull();
      try (Connection c = f.dataSource().getConnection()) {
        c.setAutoCommit(false);
        assertThat(store.completeIfHeld(c, id, a)).isFalse();
        assertThat(store.finishIfHeld(c, Finish.completed(id, a))).isFalse();
        c.commit();
      }
      HolderStore.CompleteAndClaim cc =
          store.completeAndClaim(
              f.dataSource(), List.of(Finish.completed(id, a)), Claims.by("a", 1));
      assertThat(cc.completed()).isEmpty();
      assertThat(cc.claimed()).isEmpty();
      assertThat(row(f, id)).as("row after every stale write").isEqualTo(before);

      // The current holder's write goes through: the guard is the fence, not a blanket refusal.
      assertThat(store.finishIfHeld(f.dataSource(), List.of(Finish.completed(id, second.fence()))))
          .containsExactly(second.fence());
      if (completed == HolderStore.CompletedRows.KEPT) {
        Job done = f.job(id);
        assertThat(done.state()).isEqualTo(JobState.COMPLETED);
        assertThat(done.fence()).isEqualTo(second.fence());
      } else {
        assertThat(f.count("SELECT count(*) FROM %s.job")).as("rows left").isZero();
      }
    }
  }

  @Test
  void aSnoozeThatGivesTheAttemptBackDoesNotLetTheOldHolderWrite() {
    try (Fixture f = new Fixture()) {
      HolderStore store = new HolderStore(SchemaName.of(f.schema()));
      long id = f.reader().enqueue(new Work(2)).job().id();
      ClaimedJob first = store.claim(f.dataSource(), Claims.by("a", 1)).get(0);
      // A snoozes with zero delay: the attempt is given back, so the next claim has the same
      // attempt number. A guard on attempt would let A write again; the fence does not.
      assertThat(
              store.finishIfHeld(
                  f.dataSource(),
                  List.of(new Finish(id, first.fence(), "available", 0L, null, -1, null))))
          .containsExactly(first.fence());
      ClaimedJob second = store.claim(f.dataSource(), Claims.by("b", 1)).get(0);
      assertThat(second.attempt()).isEqualTo(first.attempt());
      assertThat(second.fence()).isGreaterThan(first.fence());
      String before = row(f, id);
      assertThat(store.finishIfHeld(f.dataSource(), List.of(Finish.completed(id, first.fence()))))
          .isEmpty();
      assertThat(row(f, id)).isEqualTo(before);
    }
  }

  @Test
  void fencesOfSuccessiveClaimsStrictlyIncreaseAcrossConnections() {
    try (Fixture f = new Fixture()) {
      HolderStore store = new HolderStore(SchemaName.of(f.schema()));
      for (int i = 0; i < 50; i++) {
        f.reader().enqueue(new Work(i));
      }
      long last = 0;
      for (int i = 0; i < 50; i++) {
        ClaimedJob c = store.claim(f.dataSource(), Claims.by("n" + (i % 3), 1)).get(0);
        assertThat(c.fence()).isGreaterThan(last);
        last = c.fence();
      }
    }
  }

  private static String row(Fixture f, long id) {
    try (Connection c = f.dataSource().getConnection();
        var st = c.createStatement();
        var rs =
            st.executeQuery(
                "SELECT row_to_json(j)::text FROM \"" + f.schema() + "\".job j WHERE id = " + id)) {
      rs.next();
      return rs.getString(1);
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
