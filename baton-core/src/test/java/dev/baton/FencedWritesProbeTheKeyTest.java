package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.internal.db.ClaimedJob;
import dev.baton.internal.db.Finish;
import dev.baton.internal.db.HolderStore;
import dev.baton.internal.db.SchemaName;
import dev.baton.testing.Claims;
import dev.baton.testing.Fixture;
import dev.baton.testing.PlanRecorder;
import dev.baton.testing.TestLeader;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A holder's writes (completions, finishes, heartbeats, lease extensions, the transactional
 * completion, the completion folded into a claim) and the rescuer's update find their rows by
 * primary key, whatever the statistics say: none reads job_running_idx, the index of every running
 * job of every node. Otherwise each such statement costs in proportion to the whole cluster's
 * running jobs instead of its own few rows.
 *
 * <p>The table is analysed while nothing runs, then another node claims 2,000 jobs: the statistics
 * now say almost nothing runs, which is when the planner prefers that index (a table last analysed
 * while idle, then a burst). The real code paths run with their real binds through {@link
 * PlanRecorder}, which has PostgreSQL plan each statement as it goes, with its binds and (on
 * PostgreSQL 16 and later) as the generic plan a prepared statement may switch to.
 */
class FencedWritesProbeTheKeyTest {

  record Work(int n) implements JobArgs {}

  @ParameterizedTest
  @EnumSource(HolderStore.CompletedRows.class)
  void writesOfAHolderAndTheRescuerReadTheKeyNotEveryRunningJob(HolderStore.CompletedRows completed)
      throws Exception {
    try (Fixture f = new Fixture()) {
      HolderStore store = new HolderStore(SchemaName.of(f.schema()), completed);
      f.execute("ALTER TABLE " + f.schema() + ".job SET (autovacuum_enabled = false)");
      List<JobRequest> requests = new ArrayList<>();
      for (int i = 0; i < 3_000; i++) {
        requests.add(JobRequest.of(new Work(i)));
      }
      f.reader().enqueueMany(requests);
      f.execute("ANALYZE " + f.schema() + ".job");
      assertThat(store.claim(f.dataSource(), Claims.by("other", 2_000))).hasSize(2_000);
      List<ClaimedJob> held = store.claim(f.dataSource(), Claims.by("us", 5));
      assertThat(held).hasSize(5);

      PlanRecorder recorder = new PlanRecorder(f.dataSource());
      DataSource ds = recorder.dataSource();
      long[] ids = held.stream().mapToLong(ClaimedJob::id).toArray();
      long[] fences = held.stream().mapToLong(ClaimedJob::fence).toArray();
      assertThat(store.heartbeatIfHeld(ds, ids, fences, Duration.ofMinutes(5)).extended())
          .hasSize(5);
      assertThat(store.extendIfHeld(ds, ids[0], fences[0], Duration.ofMinutes(5), Duration.ZERO))
          .isNotNull();
      assertThat(store.finishIfHeld(ds, List.of(Finish.completed(ids[0], fences[0])))).hasSize(1);
      assertThat(
              store.finishIfHeld(
                  ds,
                  List.of(
                      new Finish(
                          ids[1], fences[1], "retryable", 1000L, "{\"error\":\"x\"}", 0, null))))
          .hasSize(1);
      assertThat(
              store
                  .completeAndClaim(
                      ds, List.of(Finish.completed(ids[2], fences[2])), Claims.by("us", 1))
                  .completed())
          .hasSize(1);
      assertThat(store.claim(ds, Claims.by("us", 1))).hasSize(1);
      try (Connection c = ds.getConnection()) {
        c.setAutoCommit(false);
        assertThat(store.completeIfHeld(c, ids[3], fences[3])).isTrue();
        c.commit();
      }
      List<PlanRecorder.Plan> holderWrites = recorder.plans();
      // Nor does any of them, or a claim, read the whole table: the rows a claim picked are updated
      // by key too, also in the generic plan (which estimates a tenth of the table for "LIMIT ?").
      assertThat(holderWrites)
          .as("statements of the holder's writes and claims")
          .filteredOn(p -> p.sql().contains("fence"))
          .hasSizeGreaterThanOrEqualTo(7)
          .allSatisfy(
              p -> {
                assertThat(p.plan()).as("plan of %s", p.sql()).doesNotContain("Seq Scan on job");
                if (p.genericPlan() != null) {
                  assertThat(p.genericPlan())
                      .as("generic plan of %s", p.sql())
                      .doesNotContain("Seq Scan on job");
                }
              });
      assertThat(holderWrites)
          .as("statements of the holder's writes")
          .filteredOn(p -> p.sql().contains("fence"))
          .hasSizeGreaterThanOrEqualTo(6)
          .allSatisfy(
              p -> {
                assertThat(p.plan())
                    .as("plan of %s", p.sql())
                    .contains("_pkey")
                    .doesNotContain("job_running_idx");
                if (p.genericPlan() != null) {
                  assertThat(p.genericPlan())
                      .as("generic plan of %s", p.sql())
                      .contains("_pkey")
                      .doesNotContain("job_running_idx");
                }
              });

      // The rescuer picks expired leases by that index, as it should, then updates them by key;
      // the scheduler likewise with job_waiting_idx.
      recorder.clear();
      TestLeader leader = TestLeader.elect(ds, f.schema());
      leader.advance(Duration.ofMinutes(20));
      assertThat(leader.rescue()).isPositive();
      assertThat(leader.schedule()).isPositive();
      assertPicksByIndexAndUpdatesByKey(recorder, "lease_expired", "job_running_idx");
      assertPicksByIndexAndUpdatesByKey(recorder, "SET state = 'available'", "job_waiting_idx");
    }
  }

  private static void assertPicksByIndexAndUpdatesByKey(
      PlanRecorder recorder, String sqlMark, String index) {
    assertThat(recorder.plans())
        .as("statements containing %s", sqlMark)
        .filteredOn(p -> p.sql().contains(sqlMark))
        .isNotEmpty()
        .allSatisfy(
            p -> {
              assertThat(p.plan().split(index, -1))
                  .as("uses of %s in the plan (the pick only):%n%s", index, p.plan())
                  .hasSize(2);
              if (p.genericPlan() != null) {
                assertThat(p.genericPlan().split(index, -1))
                    .as(
                        "uses of %s in the generic plan (the pick only):%n%s",
                        index, p.genericPlan())
                    .hasSize(2);
              }
            });
  }
}
