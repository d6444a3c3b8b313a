package dev.baton.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.testing.Fixture;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link BatonAdmin#failures}: failed attempts grouped by queue, kind, error and root cause, with
 * counts, the first and last time and the last job; rescues told apart from handler failures;
 * entries outside the window and cancels left out.
 */
class FailureGroupsTest {
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

  // A job of kind `kind` in `state` with one error entry `error` recorded `ago` before now.
  private static long job(String state, String kind, String error, String trace, String ago) {
    return f.count(
        "INSERT INTO %s.job (queue, kind, state, attempt, finalized_at, scheduled_at, errors)"
            + " VALUES ('fq', '"
            + kind
            + "', '"
            + state
            + "', 1, CASE WHEN '"
            + state
            + "' IN ('discarded', 'cancelled', 'completed') THEN now() END, now(),"
            + " jsonb_build_array(jsonb_build_object('attempt', 1, 'at', now() - interval '"
            + ago
            + "', 'error', '"
            + error
            + "', 'message', 'm-"
            + error
            + "', 'trace', "
            + (trace == null ? "NULL" : "'" + trace + "'")
            + "))) RETURNING id");
  }

  @Test
  void failedAttemptsAreGroupedByKindErrorAndRootCauseWithRescuesToldApart() {
    String trace =
        "java.lang.IllegalStateException: send failed\n\tat A.b(A.java:1)\n"
            + "Caused by: java.io.IOException: wrapped\n"
            + "Caused by: java.net.ConnectException: Connection refused\n\tat C.d(C.java:2)";
    job("discarded", "mail", "java.lang.IllegalStateException", trace, "10 minutes");
    long last = job("retryable", "mail", "java.lang.IllegalStateException", trace, "1 minute");
    job("retryable", "mail", "node_gone", null, "2 minutes");
    job("discarded", "report", "java.lang.IllegalStateException", null, "3 minutes");
    job("discarded", "mail", "java.lang.IllegalStateException", trace, "3 hours");
    job("cancelled", "mail", "cancelled", null, "1 minute");

    List<StatsAdmin.FailureGroup> groups = admin.failures(Duration.ofHours(1), 100);

    assertThat(groups).hasSize(3);
    StatsAdmin.FailureGroup first = groups.get(0);
    assertThat(first.key())
        .isEqualTo(
            new StatsAdmin.FailureKey(
                "fq", "mail", "java.lang.IllegalStateException", "java.net.ConnectException"));
    assertThat(first.count()).isEqualTo(2);
    assertThat(first.count5m()).isEqualTo(1);
    assertThat(first.last().jobId()).isEqualTo(last);
    assertThat(first.firstAt()).isBefore(first.lastAt());
    assertThat(first.key().rescue()).isFalse();
    assertThat(groups)
        .filteredOn(g -> g.key().error().equals("node_gone"))
        .singleElement()
        .satisfies(g -> assertThat(g.key().rescue()).isTrue());
    assertThat(groups)
        .filteredOn(g -> g.key().kind().equals("report"))
        .singleElement()
        .satisfies(g -> assertThat(g.key().rootCause()).isNull());
  }

  @Test
  void aWindowOrLimitOutOfRangeIsRefusedNamingBoth() {
    assertThatThrownBy(() -> admin.failures(Duration.ofDays(2), 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("window must be 1 s..1 day");
    assertThatThrownBy(() -> admin.failures(Duration.ofHours(1), 0))
        .hasMessageContaining("limit 1..500");
  }

  @Test
  void theRootCauseIsTheTracesLastCausedByLine() {
    dev.baton.JobError e =
        new dev.baton.JobError(
            1,
            java.time.Instant.EPOCH,
            "X",
            "m",
            "X: a\n\tat A.b\nCaused by: java.io.IOException: b\nCaused by: java.net.X: c\n\tat Q");
    assertThat(e.rootCause()).isEqualTo("java.net.X: c");
    assertThat(new dev.baton.JobError(1, java.time.Instant.EPOCH, "X", "m", null).rootCause())
        .isNull();
  }
}
