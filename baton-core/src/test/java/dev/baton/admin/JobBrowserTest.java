package dev.baton.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Job;
import dev.baton.JobState;
import dev.baton.testing.Fixture;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Keyset pages of jobs: following the cursors visits every matching job once, in the order of the
 * filter's state, also across rows that share their sort time (a batch finalized by one statement).
 */
class JobBrowserTest {
  private static Fixture f;
  private static JobBrowser browser;

  @BeforeAll
  static void jobs() {
    f = new Fixture();
    browser = new JobBrowser(f.dataSource(), f.schema());
    String job = f.schema() + ".job";
    // 40 discarded jobs in two queues, finalized in batches of 10 sharing one finalized_at.
    f.execute(
        "INSERT INTO "
            + job
            + " (queue, kind, state, attempt, finalized_at)"
            + " SELECT CASE WHEN g % 2 = 0 THEN 'a' ELSE 'b' END, 'k' || (g % 3), 'discarded', 1,"
            + " timestamptz '2026-01-01' + (g / 10) * interval '1 minute'"
            + " FROM generate_series(1, 40) g");
    // 30 available jobs over two queues and three priorities; 15 scheduled with shared due times.
    f.execute(
        "INSERT INTO "
            + job
            + " (queue, kind, priority, scheduled_at)"
            + " SELECT CASE WHEN g % 2 = 0 THEN 'a' ELSE 'b' END, 'k', g % 3,"
            + " now() - (g % 4) * interval '1 second' FROM generate_series(1, 30) g");
    f.execute(
        "INSERT INTO "
            + job
            + " (queue, kind, state, scheduled_at)"
            + " SELECT 'a', 'k', 'scheduled', now() + (g % 5) * interval '1 hour'"
            + " FROM generate_series(1, 15) g");
  }

  @AfterAll
  static void close() {
    f.close();
  }

  private static List<Job> all(JobBrowser.Filter filter, int size) {
    List<Job> out = new ArrayList<>();
    JobBrowser.Page page = browser.page(filter, null, size);
    out.addAll(page.jobs());
    while (page.next() != null) {
      assertThat(page.jobs()).hasSize(size);
      page = browser.page(filter, page.next(), size);
      out.addAll(page.jobs());
    }
    return out;
  }

  @Test
  void pagesOfEveryStateVisitEachMatchingJobOnceInItsOrder() {
    List<Job> discarded = all(JobBrowser.Filter.ANY.withState(JobState.DISCARDED), 7);
    assertThat(discarded).hasSize(40).doesNotHaveDuplicates();
    assertThat(discarded)
        .isSortedAccordingTo(
            Comparator.comparing(Job::finalizedAt).thenComparing(Job::id).reversed());

    List<Job> available = all(JobBrowser.Filter.ANY.withState(JobState.AVAILABLE), 4);
    assertThat(available).hasSize(30).doesNotHaveDuplicates();
    assertThat(available)
        .isSortedAccordingTo(
            Comparator.comparing(Job::queue)
                .thenComparing(Job::priority)
                .thenComparing(Job::scheduledAt)
                .thenComparing(Job::id));

    List<Job> scheduled = all(JobBrowser.Filter.ANY.withState(JobState.SCHEDULED), 4);
    assertThat(scheduled).hasSize(15).doesNotHaveDuplicates();
    assertThat(scheduled)
        .isSortedAccordingTo(Comparator.comparing(Job::scheduledAt).thenComparing(Job::id));

    List<Job> every = all(JobBrowser.Filter.ANY, 9);
    assertThat(every).hasSize((int) f.count("SELECT count(*) FROM " + f.schema() + ".job"));
    assertThat(every).isSortedAccordingTo(Comparator.comparing(Job::id).reversed());
  }

  @Test
  void aQueueWithoutAStateIsPagedNewestFirstAcrossAllItsStates() throws SQLException {
    List<Job> a = all(JobBrowser.Filter.ANY.withQueue("a"), 4);
    assertThat(a).extracting(Job::queue).containsOnly("a");
    assertThat(a)
        .extracting(Job::id)
        .containsExactlyElementsOf(
            ids("SELECT id FROM " + f.schema() + ".job WHERE queue = 'a' ORDER BY id DESC"));
    assertThat(a).extracting(Job::state).contains(JobState.DISCARDED, JobState.AVAILABLE);
  }

  @Test
  void thePendingStateListsOnlyPendingJobsAlsoWithAQueue() throws SQLException {
    f.execute(
        "INSERT INTO "
            + f.schema()
            + ".job (queue, kind, state, deps_waiting)"
            + " SELECT CASE WHEN g % 2 = 0 THEN 'a' ELSE 'b' END, 'k', 'pending', 1"
            + " FROM generate_series(1, 6) g");
    try {
      List<Job> pending = all(JobBrowser.Filter.ANY.withState(JobState.PENDING), 4);
      assertThat(pending).extracting(Job::state).containsOnly(JobState.PENDING);
      assertThat(pending)
          .extracting(Job::id)
          .containsExactlyElementsOf(
              ids(
                  "SELECT id FROM "
                      + f.schema()
                      + ".job WHERE state = 'pending' ORDER BY id DESC"));
      assertThat(all(JobBrowser.Filter.ANY.withState(JobState.PENDING).withQueue("a"), 2))
          .extracting(Job::id)
          .containsExactlyElementsOf(
              ids(
                  "SELECT id FROM "
                      + f.schema()
                      + ".job WHERE state = 'pending' AND queue = 'a' ORDER BY id DESC"));
    } finally {
      f.execute("DELETE FROM " + f.schema() + ".job WHERE state = 'pending'");
    }
  }

  // Follows the cursors of a browser with a budget of 5 rows a page, 3 jobs a page, and returns
  // the ids in the order seen, with how many pages were scan-limited and how many came back empty.
  private record Paged(List<Long> ids, int limited, int empty) {}

  private static Paged allWithBudget(JobBrowser.Filter filter) {
    JobBrowser small = new JobBrowser(f.dataSource(), f.schema(), 5);
    List<Long> ids = new ArrayList<>();
    int limited = 0;
    int empty = 0;
    String cursor = null;
    for (int pages = 0; ; pages++) {
      // A cursor that does not move on loops for ever: 85 jobs at 5 a page end well within this.
      assertThat(pages).as("pages of " + filter).isLessThan(100);
      JobBrowser.Page page = small.page(filter, cursor, 3);
      page.jobs().forEach(j -> ids.add(j.id()));
      if (page.scanLimited()) {
        limited++;
        assertThat(page.next()).isNotNull();
        assertThat(page.searchedUpTo().rowsRead()).isEqualTo(5);
      } else if (page.next() != null) {
        assertThat(page.jobs()).hasSize(3);
      }
      if (page.jobs().isEmpty()) {
        empty++;
      }
      if (page.next() == null) {
        return new Paged(ids, limited, empty);
      }
      cursor = page.next();
    }
  }

  @Test
  void pagesLimitedByTheScanBudgetStillVisitEachMatchingJobOnceInOrder() throws SQLException {
    String job = f.schema() + ".job";
    // queue 'a' without a state: every other job, newest first (partial pages).
    Paged a = allWithBudget(JobBrowser.Filter.ANY.withQueue("a"));
    assertThat(a.ids())
        .containsExactlyElementsOf(
            ids("SELECT id FROM " + job + " WHERE queue = 'a' ORDER BY id DESC"));
    assertThat(a.limited()).isPositive();
    // A kind of only some discarded jobs, without a state: empty pages among the available and
    // scheduled jobs, then partial ones.
    Paged k1 = allWithBudget(JobBrowser.Filter.ANY.withKind("k1"));
    assertThat(k1.ids())
        .isNotEmpty()
        .containsExactlyElementsOf(
            ids("SELECT id FROM " + job + " WHERE kind = 'k1' ORDER BY id DESC"));
    assertThat(k1.empty()).isPositive();
    // No match at all: every page is empty until the walk reaches the end.
    Paged none = allWithBudget(JobBrowser.Filter.ANY.withKind("none"));
    assertThat(none.ids()).isEmpty();
    assertThat(none.limited()).isGreaterThanOrEqualTo(85 / 5 - 1);
    // A finished state, its rows sharing finalized_at in batches of ten.
    Paged discarded =
        allWithBudget(
            JobBrowser.Filter.ANY.withState(JobState.DISCARDED).withQueue("b").withKind("k2"));
    assertThat(discarded.ids())
        .isNotEmpty()
        .containsExactlyElementsOf(
            ids(
                "SELECT id FROM "
                    + job
                    + " WHERE state = 'discarded' AND queue = 'b' AND kind = 'k2'"
                    + " ORDER BY finalized_at DESC, id DESC"));
    assertThat(discarded.limited()).isPositive();
    // Due order, and claim order with a kind (the queue there is served by the claim index).
    Paged scheduled =
        allWithBudget(JobBrowser.Filter.ANY.withState(JobState.SCHEDULED).withQueue("a"));
    assertThat(scheduled.ids())
        .hasSize(15)
        .containsExactlyElementsOf(
            ids(
                "SELECT id FROM "
                    + job
                    + " WHERE state = 'scheduled' AND queue = 'a' ORDER BY scheduled_at, id"));
    Paged available =
        allWithBudget(JobBrowser.Filter.ANY.withState(JobState.AVAILABLE).withKind("k"));
    assertThat(available.ids())
        .hasSize(30)
        .containsExactlyElementsOf(
            ids(
                "SELECT id FROM "
                    + job
                    + " WHERE state = 'available' ORDER BY queue, priority, scheduled_at, id"));
  }

  @Test
  void argsAndMetadataAreFoundByJsonContainment() throws Exception {
    com.fasterxml.jackson.databind.ObjectMapper json =
        new com.fasterxml.jackson.databind.ObjectMapper();
    // A schema of its own: the other tests count the shared one's jobs.
    try (Fixture own = new Fixture()) {
      JobBrowser b = new JobBrowser(own.dataSource(), own.schema());
      long match =
          own.count(
              "INSERT INTO %s.job (queue, kind, args, metadata) VALUES ('json', 'k', '{\"customer\":"
                  + " {\"id\": 7, \"tier\": \"gold\"}, \"tags\": [\"a\", \"b\"]}',"
                  + " '{\"tenant\": \"acme\"}') RETURNING id");
      own.count(
          "INSERT INTO %s.job (queue, kind, args) VALUES ('json', 'k', '{\"customer\": {\"id\":"
              + " 8}}') RETURNING id");
      JobBrowser.Filter json7 =
          JobBrowser.Filter.ANY.withArgs(json.readTree("{\"customer\": {\"id\": 7}}"));
      assertThat(b.page(json7, null, 5).jobs()).extracting(Job::id).containsExactly(match);
      assertThat(
              b.page(JobBrowser.Filter.ANY.withArgs(json.readTree("{\"tags\": [\"b\"]}")), null, 5)
                  .jobs())
          .extracting(Job::id)
          .containsExactly(match);
      assertThat(
              b.page(
                      JobBrowser.Filter.ANY.withArgs(json.readTree("{\"customer\": {\"id\": 9}}")),
                      null,
                      5)
                  .jobs())
          .isEmpty();
      assertThat(
              b.page(
                      JobBrowser.Filter.ANY
                          .withState(JobState.AVAILABLE)
                          .withMetadata(json.readTree("{\"tenant\": \"acme\"}")),
                      null,
                      5)
                  .jobs())
          .extracting(Job::id)
          .containsExactly(match);
      assertThat(b.count(json7, 10)).isEqualTo(1);
    }
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> JobBrowser.Filter.ANY.withArgs(json.readTree("[1]")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be JSON objects");
  }

  @Test
  void aFilterThatAnIndexServesIsNeverScanLimited() {
    JobBrowser small = new JobBrowser(f.dataSource(), f.schema(), 5);
    JobBrowser.Page page =
        small.page(JobBrowser.Filter.ANY.withState(JobState.DISCARDED), null, 20);
    assertThat(page.scanLimited()).isFalse();
    assertThat(page.jobs()).hasSize(20);
    JobBrowser.Page claim =
        small.page(JobBrowser.Filter.ANY.withState(JobState.AVAILABLE).withQueue("b"), null, 10);
    assertThat(claim.scanLimited()).isFalse();
    assertThat(claim.jobs()).hasSize(10);
  }

  private static List<Long> ids(String sql) throws SQLException {
    List<Long> out = new ArrayList<>();
    try (Connection c = f.dataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getLong(1));
      }
    }
    return out;
  }

  @Test
  void filtersCombineAndCountStopsAtItsCap() {
    JobBrowser.Filter f =
        JobBrowser.Filter.ANY.withState(JobState.DISCARDED).withQueue("a").withKind("k1");
    List<Job> jobs = all(f, 3);
    assertThat(jobs)
        .isNotEmpty()
        .allSatisfy(
            j -> {
              assertThat(j.queue()).isEqualTo("a");
              assertThat(j.kind()).isEqualTo("k1");
            });
    assertThat(browser.count(f, 1_000)).isEqualTo(jobs.size());
    assertThat(browser.count(JobBrowser.Filter.ANY, 10)).isEqualTo(10);
    long id = jobs.get(0).id();
    assertThat(browser.page(JobBrowser.Filter.ANY.withId(id), null, 5).jobs())
        .extracting(Job::id)
        .containsExactly(id);
  }

  @Test
  void badCursorsAndSizesAreRefusedWithWhatWasWrong() {
    JobBrowser.Filter discarded = JobBrowser.Filter.ANY.withState(JobState.DISCARDED);
    String next = browser.page(discarded, null, 2).next();
    assertThatThrownBy(() -> browser.page(JobBrowser.Filter.ANY, next, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("another state");
    assertThatThrownBy(() -> browser.page(discarded, "not a cursor!", 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("invalid page cursor");
    assertThatThrownBy(() -> browser.page(discarded, null, 0))
        .hasMessageContaining("size must be 1..500, got 0");
  }

  @Test
  void completionsAreCountedPerBucketOldestFirst() {
    f.execute(
        "INSERT INTO "
            + f.schema()
            + ".job (queue, kind, state, attempt, finalized_at)"
            + " SELECT 'c', 'k', 'completed', 1, now() - interval '7 minutes'"
            + " FROM generate_series(1, 3)");
    StatsAdmin stats = new StatsAdmin(f.dataSource(), f.schema());
    List<StatsAdmin.QueueCompletions> c =
        stats.completions(Duration.ofHours(1), Duration.ofMinutes(5));
    List<Long> counts =
        c.stream().filter(q -> q.queue().equals("c")).findFirst().orElseThrow().completed();
    assertThat(counts).hasSize(12);
    assertThat(counts.get(10)).isEqualTo(3);
    assertThat(counts.stream().mapToLong(Long::longValue).sum()).isEqualTo(3);
  }
}
