package dev.baton.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.EnqueueOptions;
import dev.baton.EnqueueResult;
import dev.baton.InvalidJobException;
import dev.baton.Job;
import dev.baton.JobState;
import dev.baton.testing.Fixture;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operator's job actions. Retry and delete never touch a running job, including one a worker
 * claims while they wait for its row lock: the state guard is in the statement's WHERE clause.
 */
class JobAdminTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static Fixture f;
  private static JobAdmin admin;

  @BeforeAll
  static void schema() {
    f = new Fixture();
    admin = new JobAdmin(f.dataSource(), f.schema());
  }

  @AfterAll
  static void close() {
    f.close();
  }

  private static JsonNode json(String s) {
    try {
      return MAPPER.readTree(s);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static long enqueue(String kind) {
    return admin.enqueue(kind, json("{\"n\": 1}"), EnqueueOptions.defaults()).job().id();
  }

  private static String table() {
    return f.schema() + ".job";
  }

  private static void markRunning(long id) {
    f.execute(
        "UPDATE "
            + table()
            + " SET state = 'running', attempt = attempt + 1, attempted_by = 'node-a',"
            + " lease_expires_at = now() + interval '5 minutes', fence = nextval('"
            + f.schema()
            + ".job_fence_seq') WHERE id = "
            + id);
  }

  private static void markDiscarded(long id) {
    f.execute(
        "UPDATE "
            + table()
            + " SET state = 'discarded', attempt = max_attempts, finalized_at = now() WHERE id = "
            + id);
  }

  @Test
  void enqueueTakesAnyValidKindAndRawArgs() {
    EnqueueResult r =
        admin.enqueue(
            "billing.charge",
            json("{\"amount\": 12, \"currency\": \"EUR\"}"),
            EnqueueOptions.builder().queue("billing").priority(3).metadata("by", "ops").build());
    Job job = r.job();
    assertThat(r.existing()).isFalse();
    assertThat(job.kind()).isEqualTo("billing.charge");
    assertThat(job.queue()).isEqualTo("billing");
    assertThat(job.args().path("amount").asInt()).isEqualTo(12);
    assertThat(job.metadata().path("by").asText()).isEqualTo("ops");
    assertThat(job.state()).isEqualTo(JobState.AVAILABLE);
    assertThat(admin.get(job.id())).contains(job);
  }

  @Test
  void enqueueRejectsABadKindOrArgsThatAreNotAnObject() {
    assertThatThrownBy(() -> admin.enqueue("no spaces", json("{}"), EnqueueOptions.defaults()))
        .isInstanceOf(InvalidJobException.class)
        .hasMessageContaining("kind");
    assertThatThrownBy(() -> admin.enqueue("k", json("[1]"), EnqueueOptions.defaults()))
        .isInstanceOf(InvalidJobException.class)
        .hasMessageContaining("args must be a JSON object, got array");
  }

  @Test
  void enqueueChecksArgsAgainstTheConfiguredLimitNotTheDefault() {
    JobAdmin limited = new JobAdmin(f.dataSource(), f.config().maxArgsBytes(100).build());
    JsonNode big = json("{\"s\": \"" + "x".repeat(200) + "\"}");
    assertThatThrownBy(() -> limited.enqueue("args_limit", big, EnqueueOptions.defaults()))
        .isInstanceOf(InvalidJobException.class)
        .hasMessageContaining("over the limit of 100")
        .hasMessageContaining("maxArgsBytes");
    assertThat(admin.enqueue("args_limit", big, EnqueueOptions.defaults()).existing()).isFalse();
  }

  @Test
  void listFiltersAndOrdersNewestFirst() {
    long a =
        admin
            .enqueue("list_k", json("{}"), EnqueueOptions.builder().queue("la").build())
            .job()
            .id();
    long b =
        admin
            .enqueue("list_k", json("{}"), EnqueueOptions.builder().queue("la").build())
            .job()
            .id();
    markDiscarded(b);
    assertThat(admin.list(JobAdmin.ListFilter.of(null, "la", null, 10)))
        .extracting(Job::id)
        .containsExactly(b, a);
    assertThat(admin.list(JobAdmin.ListFilter.of(JobState.DISCARDED, "la", "list_k", 10)))
        .extracting(Job::id)
        .containsExactly(b);
    assertThat(admin.list(JobAdmin.ListFilter.of(null, "la", null, 1))).hasSize(1);
    assertThatThrownBy(() -> JobAdmin.ListFilter.of(null, null, null, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void retryOfADiscardedJobGrantsOneMoreAttemptAndNotesIt() {
    long id = enqueue("retry_discarded");
    markDiscarded(id);
    JobAdmin.RetryResult r = admin.retry(id, "ops@example.com");
    assertThat(r.outcome()).isEqualTo(JobAdmin.RetryOutcome.RETRIED);
    assertThat(r.previousState()).isEqualTo(JobState.DISCARDED);
    Job job = r.job();
    assertThat(job.state()).isEqualTo(JobState.AVAILABLE);
    assertThat(job.attempt()).isEqualTo(EnqueueOptions.DEFAULT_MAX_ATTEMPTS);
    assertThat(job.maxAttempts()).isEqualTo(EnqueueOptions.DEFAULT_MAX_ATTEMPTS + 1);
    assertThat(job.finalizedAt()).isNull();
    assertThat(job.metadata().path("retried_by").asText()).isEqualTo("ops@example.com");
    assertThat(job.metadata().path("retry_count").asInt()).isEqualTo(1);
  }

  @Test
  void retryOfAScheduledJobRunsItNow() {
    long id =
        admin
            .enqueue(
                "retry_scheduled",
                json("{}"),
                EnqueueOptions.builder().runAt(Instant.now().plus(Duration.ofDays(1))).build())
            .job()
            .id();
    JobAdmin.RetryResult r = admin.retry(id, null);
    assertThat(r.outcome()).isEqualTo(JobAdmin.RetryOutcome.RETRIED);
    assertThat(r.previousState()).isEqualTo(JobState.SCHEDULED);
    assertThat(r.job().scheduledAt()).isBefore(Instant.now().plusSeconds(60));
    assertThat(admin.retry(id, null).outcome()).isEqualTo(JobAdmin.RetryOutcome.ALREADY_AVAILABLE);
  }

  @Test
  void retryAndDeleteOfAnUnknownIdReportNotFound() {
    assertThat(admin.retry(Long.MAX_VALUE, null).outcome())
        .isEqualTo(JobAdmin.RetryOutcome.NOT_FOUND);
    assertThat(admin.delete(Long.MAX_VALUE).outcome()).isEqualTo(JobAdmin.DeleteOutcome.NOT_FOUND);
  }

  @Test
  void retryAndDeleteLeaveARunningJobAlone() {
    long id = enqueue("running_guard");
    markRunning(id);
    Job before = admin.get(id).orElseThrow();
    assertThat(admin.retry(id, null).outcome()).isEqualTo(JobAdmin.RetryOutcome.RUNNING);
    assertThat(admin.delete(id).outcome()).isEqualTo(JobAdmin.DeleteOutcome.RUNNING);
    assertThat(admin.get(id)).contains(before);
  }

  @Test
  void deleteRemovesAJobThatIsNotRunning() {
    long id = enqueue("delete_me");
    markDiscarded(id);
    JobAdmin.DeleteResult r = admin.delete(id);
    assertThat(r.outcome()).isEqualTo(JobAdmin.DeleteOutcome.DELETED);
    assertThat(r.job().state()).isEqualTo(JobState.DISCARDED);
    assertThat(admin.get(id)).isEmpty();
  }

  @Test
  void aClaimThatWinsTheRowLockWinsOverRetry() throws Exception {
    long id = enqueue("race_retry");
    markDiscarded(id);
    assertClaimWins(id, () -> admin.retry(id, "racer").outcome(), JobAdmin.RetryOutcome.RUNNING);
  }

  @Test
  void aClaimThatWinsTheRowLockWinsOverDelete() throws Exception {
    long id = enqueue("race_delete");
    assertClaimWins(id, () -> admin.delete(id).outcome(), JobAdmin.DeleteOutcome.RUNNING);
  }

  /**
   * A worker's claim of job {@code id} holds its row lock (uncommitted) while {@code action} runs
   * on another connection and waits for it; the claim commits; the action must then see the job
   * running and change nothing.
   */
  private static <T> void assertClaimWins(long id, Supplier<T> action, T expected)
      throws Exception {
    try (Connection claim = f.dataSource().getConnection()) {
      claim.setAutoCommit(false);
      try (PreparedStatement ps =
          claim.prepareStatement(
              "UPDATE "
                  + table()
                  + " SET state = 'running', attempt = attempt + 1, attempted_by = 'node-a',"
                  + " finalized_at = NULL, lease_expires_at = now() + interval '5 minutes',"
                  + " fence = nextval('"
                  + f.schema()
                  + ".job_fence_seq') WHERE id = ?")) {
        ps.setLong(1, id);
        assertThat(ps.executeUpdate()).isEqualTo(1);
      }
      CompletableFuture<T> result = CompletableFuture.supplyAsync(action);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  f.count(
                          "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                              + " AND query LIKE '%"
                              + f.schema()
                              + "%'")
                      > 0);
      assertThat(result).isNotDone();
      claim.commit();
      assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo(expected);
    }
    Job after = admin.get(id).orElseThrow();
    assertThat(after.state()).isEqualTo(JobState.RUNNING);
    assertThat(after.attemptedBy()).isEqualTo("node-a");
    assertThat(after.metadata().has("retried_at")).isFalse();
  }
}
