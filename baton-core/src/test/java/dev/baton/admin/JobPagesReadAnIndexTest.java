package dev.baton.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.JobState;
import dev.baton.testing.Fixture;
import dev.baton.testing.PlanRecorder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A page of jobs reads its rows in order from an index and stops at the page's end: no plan of a
 * page, for any state filter or none, first page or later, scans the table or sorts every match. So
 * a page costs the same on a table of millions (the figures: baton-dashboard/bench/speed.sh). A
 * filter checked on the rows read reads at most the scan budget's rows, through an index too.
 */
class JobPagesReadAnIndexTest {
  private static Fixture f;
  private static final com.fasterxml.jackson.databind.JsonNode ARGS =
      new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode().put("customer", 7);

  @BeforeAll
  static void jobs() {
    f = new Fixture();
    // A queue of ten old jobs, which the planner knows to be rare: without a bound on the walk,
    // reading the table and sorting its few matches is its cheapest plan.
    f.execute(
        "INSERT INTO %s.job (queue, kind, state, attempt, finalized_at)"
            + " SELECT 'rare', 'k', 'completed', 1, now() - interval '1 day'"
            + " FROM generate_series(1, 10)");
    f.execute(
        "INSERT INTO %s.job (queue, kind, state, attempt, scheduled_at, attempted_at,"
            + " lease_expires_at, finalized_at)"
            + " SELECT 'q' || (g % 5), 'k', s, 1, now() + (g % 100) * interval '1 second',"
            + "   CASE WHEN s = 'available' THEN NULL ELSE now() END,"
            + "   CASE WHEN s = 'running' THEN now() + interval '1 minute' END,"
            + "   CASE WHEN s IN ('completed', 'discarded', 'cancelled') THEN now() - g *"
            + "   interval '1 millisecond' END"
            + " FROM (SELECT g, (ARRAY['completed', 'completed', 'completed', 'discarded',"
            + "   'cancelled', 'available', 'scheduled', 'retryable', 'running'])[1 + g % 9] AS s"
            + "   FROM generate_series(1, 30000) g) x");
    f.execute("ANALYZE %s.job");
  }

  @AfterAll
  static void close() {
    f.close();
  }

  @Test
  void everyPageReadsAnIndexInOrderWithoutSortingEveryMatch() {
    PlanRecorder recorder = new PlanRecorder(f.dataSource());
    JobBrowser browser = new JobBrowser(recorder.dataSource(), f.schema());
    List<JobBrowser.Filter> filters = new ArrayList<>();
    filters.add(JobBrowser.Filter.ANY);
    filters.add(JobBrowser.Filter.ANY.withQueue("q1"));
    filters.add(JobBrowser.Filter.ANY.withQueue("rare"));
    filters.add(JobBrowser.Filter.ANY.withKind("k"));
    filters.add(JobBrowser.Filter.ANY.withKind("none"));
    for (JobState s : JobState.values()) {
      filters.add(JobBrowser.Filter.ANY.withState(s));
      filters.add(JobBrowser.Filter.ANY.withState(s).withQueue("q2"));
      filters.add(JobBrowser.Filter.ANY.withState(s).withQueue("rare"));
      filters.add(JobBrowser.Filter.ANY.withState(s).withKind("none"));
      filters.add(JobBrowser.Filter.ANY.withState(s).withQueue("q2").withKind("k"));
      filters.add(JobBrowser.Filter.ANY.withState(s).withArgs(ARGS));
      filters.add(JobBrowser.Filter.ANY.withState(s).withMetadata(ARGS));
    }
    filters.add(JobBrowser.Filter.ANY.withArgs(ARGS));
    for (JobBrowser.Filter filter : filters) {
      recorder.clear();
      JobBrowser.Page first = browser.page(filter, null, 50);
      if (first.next() != null) {
        browser.page(filter, first.next(), 50);
      }
      assertThat(recorder.plans()).isNotEmpty();
      for (PlanRecorder.Plan p : recorder.plans()) {
        assertThat(p.plan())
            .as(filter + "\n" + p.sql())
            .contains("Index")
            .doesNotContain("Seq Scan");
        // A plain Sort above the scan sorts every matching row; an Incremental Sort only the ties
        // of one index key. A running filter reads few rows (at most the cluster's concurrency).
        // In claim order with a queue and a kind, the planner may read the queue's available rows
        // through job_claim_idx and sort them when it expects fewer of them than the budget.
        boolean claimOfAQueue = filter.state() == JobState.AVAILABLE && filter.kind() != null;
        if (filter.state() != JobState.RUNNING && !(claimOfAQueue && filter.queue() != null)) {
          assertThat(p.plan())
              .as(filter + "\n" + p.plan())
              .doesNotContainPattern("(?m)^\\s*(->\\s+)?Sort\\s+\\(");
        }
        // A queue or kind that the walk's index does not select is checked outside a sub-select
        // that reads at most the scan budget's rows: its Limit lies inside the Subquery Scan.
        if (checkedOnRowsRead(filter)) {
          assertThat(p.plan())
              .as(filter + "\n" + p.plan())
              .containsPattern("(?s)Subquery Scan.*->\\s+Limit.*->\\s+WindowAgg.*Index");
        } else {
          assertThat(p.plan()).as(filter + "\n" + p.plan()).doesNotContain("Subquery Scan");
        }
      }
    }
  }

  @Test
  void waitAndRunTimesReadAtMostTheirSampleThroughTheFinalizedIndex() {
    PlanRecorder recorder = new PlanRecorder(f.dataSource());
    new BatonAdmin(recorder.dataSource(), f.schema()).latencies(java.time.Duration.ofDays(7), 100);
    assertThat(recorder.plans()).isNotEmpty();
    for (PlanRecorder.Plan p : recorder.plans()) {
      assertThat(p.plan())
          .as(p.sql())
          .containsPattern("(?s)Limit.*Index Scan Backward using job_finalized_idx")
          .doesNotContain("Seq Scan");
    }
  }

  @Test
  void aJobsUniquenessFindsTheHolderOfItsKeyThroughTheUniqueIndex() {
    BatonAdmin admin = new BatonAdmin(f.dataSource(), f.schema());
    long id =
        admin
            .enqueue(
                "sync",
                ARGS,
                dev.baton.EnqueueOptions.builder()
                    .unique(dev.baton.UniqueOptions.byArgs().build())
                    .build())
            .job()
            .id();
    PlanRecorder recorder = new PlanRecorder(f.dataSource());
    JobAdmin.Uniqueness u =
        new BatonAdmin(recorder.dataSource(), f.schema()).uniqueness(id).orElseThrow();
    assertThat(u.holder()).isEqualTo(id);
    assertThat(recorder.plans()).isNotEmpty();
    for (PlanRecorder.Plan p : recorder.plans()) {
      assertThat(p.plan())
          .as(p.sql())
          .contains("job_pkey", "job_unique_key_idx")
          .doesNotContain("Seq Scan");
    }
    f.execute("DELETE FROM %s.job WHERE id = " + id);
  }

  private static boolean checkedOnRowsRead(JobBrowser.Filter filter) {
    if (filter.state() == JobState.RUNNING) {
      return false;
    }
    boolean json = filter.args() != null || filter.metadata() != null;
    if (filter.state() == JobState.AVAILABLE) {
      return filter.kind() != null || json;
    }
    // Pending jobs have no index of their own: their walk is budgeted like a queue's.
    return filter.queue() != null
        || filter.kind() != null
        || json
        || filter.state() == JobState.PENDING;
  }
}
