package dev.baton.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testing.Fixture;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operator API's bulk actions ({@link BatonAdmin#retryAll} and its kin): batched statements
 * that keep each action's state checks (a running job is never retried or deleted), record who
 * acted, and change nothing when run a second time.
 */
class BulkActionsTest {
  private static Fixture f;
  private static BatonAdmin admin;

  @BeforeAll
  static void schema() {
    f = new Fixture();
    admin = new BatonAdmin(f.dataSource(), f.schema());
  }

  @AfterAll
  static void close() {
    f.close();
  }

  private static List<Long> insert(String queue, String state, int n) {
    List<Long> ids = new ArrayList<>();
    String finalized =
        List.of("completed", "cancelled", "discarded").contains(state) ? "now()" : "NULL";
    f.db()
        .execute(
            "INSERT INTO "
                + f.schema()
                + ".job (queue, kind, state, attempt, attempted_at, lease_expires_at, fence,"
                + " finalized_at) SELECT '"
                + queue
                + "', 'k', '"
                + state
                + "', 1, now(), CASE WHEN '"
                + state
                + "' = 'running' THEN now() + interval '5 minutes' END, 1, "
                + finalized
                + " FROM generate_series(1, "
                + n
                + ")");
    long first =
        f.count(
            "SELECT min(id) FROM %s.job WHERE queue = '" + queue + "' AND state = '" + state + "'");
    for (long i = 0; i < n; i++) {
      ids.add(first + i);
    }
    return ids;
  }

  private static long count(String queue, String state) {
    return f.count(
        "SELECT count(*) FROM %s.job WHERE queue = '" + queue + "' AND state = '" + state + "'");
  }

  @Test
  void retryAllRetriesEveryRetryableStateInBatchesAndNeverARunningJob() {
    List<Long> ids = new ArrayList<>(insert("br", "discarded", 2_500));
    ids.addAll(insert("br", "running", 3));
    ids.addAll(insert("br", "available", 2));

    assertThat(admin.retryAll(ids, "ops")).isEqualTo(2_500);
    assertThat(count("br", "available")).isEqualTo(2_502);
    assertThat(count("br", "running")).isEqualTo(3);
    assertThat(
            f.count(
                "SELECT count(*) FROM %s.job WHERE queue = 'br' AND metadata ->> 'retried_by' = 'ops'"))
        .isEqualTo(2_500);
    assertThat(admin.retryAll(ids, "ops")).isZero();
  }

  @Test
  void runNowAllTakesOnlyWaitingJobs() {
    List<Long> ids = new ArrayList<>(insert("rn", "retryable", 4));
    ids.addAll(insert("rn", "completed", 2));
    assertThat(admin.runNowAll(ids, "ops")).isEqualTo(4);
    assertThat(count("rn", "completed")).isEqualTo(2);
    assertThat(admin.runNowAll(ids, "ops")).isZero();
  }

  @Test
  void cancelAllCancelsWaitingJobsAsksRunningOnesOnceAndRecordsWho() {
    List<Long> ids = new ArrayList<>(insert("bc", "available", 5));
    ids.addAll(insert("bc", "running", 2));
    ids.addAll(insert("bc", "completed", 1));

    assertThat(admin.cancelAll(ids, "ops")).isEqualTo(7);
    assertThat(count("bc", "cancelled")).isEqualTo(5);
    assertThat(
            f.count(
                "SELECT count(*) FROM %s.job WHERE queue = 'bc' AND state = 'running'"
                    + " AND metadata ->> 'cancel_requested_by' = 'ops'"))
        .isEqualTo(2);
    assertThat(admin.cancelAll(ids, "ops")).isZero();
  }

  @Test
  void deleteAllLeavesRunningJobs() {
    List<Long> ids = new ArrayList<>(insert("bd", "discarded", 1_200));
    ids.addAll(insert("bd", "running", 1));
    assertThat(admin.deleteAll(ids)).isEqualTo(1_200);
    assertThat(count("bd", "running")).isEqualTo(1);
    assertThat(admin.deleteAll(ids)).isZero();
  }
}
