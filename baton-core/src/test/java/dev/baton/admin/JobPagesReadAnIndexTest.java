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
 * a page costs the same on a table of millions (the figures: baton-dashboard/bench/speed.sh).
 */
class JobPagesReadAnIndexTest {
  private static Fixture f;

  @BeforeAll
  static void jobs() {
    f = new Fixture();
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
    for (JobState s : JobState.values()) {
      filters.add(JobBrowser.Filter.ANY.withState(s));
      filters.add(JobBrowser.Filter.ANY.withState(s).withQueue("q2"));
    }
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
        if (filter.state() != JobState.RUNNING) {
          assertThat(p.plan())
              .as(filter + "\n" + p.plan())
              .doesNotContainPattern("(?m)^\\s*(->\\s+)?Sort\\s+\\(");
        }
      }
    }
  }
}
