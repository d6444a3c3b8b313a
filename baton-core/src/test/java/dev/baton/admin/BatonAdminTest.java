package dev.baton.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.EnqueueOptions;
import dev.baton.InvalidConfigException;
import dev.baton.Job;
import dev.baton.JobState;
import dev.baton.QueueInfo;
import dev.baton.testing.Fixture;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The operator API on a real schema: run now changes only a waiting job, under its row lock; queue
 * control sends the notifications a client's does; a client's operator methods are this API's.
 */
class BatonAdminTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
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

  private static JsonNode json(String s) {
    try {
      return MAPPER.readTree(s);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static long enqueue(String kind, EnqueueOptions options) {
    return admin.enqueue(kind, json("{\"n\": 1}"), options).job().id();
  }

  private static long scheduled(String kind) {
    return enqueue(
        kind, EnqueueOptions.builder().runAt(Instant.now().plus(Duration.ofDays(1))).build());
  }

  private static void set(long id, String assignments) {
    f.execute("UPDATE " + f.schema() + ".job SET " + assignments + " WHERE id = " + id);
  }

  @Test
  void runNowMakesAScheduledJobAvailableAndNotesItAsARetry() {
    long id = scheduled("run_now_scheduled");
    JobAdmin.RunNowResult r = admin.runNow(id, "ops@example.com");
    assertThat(r.outcome()).isEqualTo(JobAdmin.RunNowOutcome.MADE_AVAILABLE);
    assertThat(r.previousState()).isEqualTo(JobState.SCHEDULED);
    assertThat(r.job().state()).isEqualTo(JobState.AVAILABLE);
    assertThat(r.job().scheduledAt()).isBefore(Instant.now().plusSeconds(60));
    assertThat(r.job().metadata().path("retried_by").asText()).isEqualTo("ops@example.com");
    assertThat(r.job().metadata().path("retried_from").asText()).isEqualTo("scheduled");
    assertThat(admin.get(id)).contains(r.job());
  }

  @Test
  void runNowMakesARetryableJobAvailableWithItsAttemptsKept() {
    long id = enqueue("run_now_retryable", EnqueueOptions.builder().maxAttempts(5).build());
    set(id, "state = 'retryable', attempt = 2, scheduled_at = now() + interval '1 hour'");
    JobAdmin.RunNowResult r = admin.runNow(id, null);
    assertThat(r.outcome()).isEqualTo(JobAdmin.RunNowOutcome.MADE_AVAILABLE);
    assertThat(r.previousState()).isEqualTo(JobState.RETRYABLE);
    assertThat(r.job().attempt()).isEqualTo(2);
    assertThat(r.job().maxAttempts()).isEqualTo(5);
  }

  @Test
  void runNowLeavesAnAvailableARunningAndAFinalJobAsTheyAre() {
    long available = enqueue("run_now_available", EnqueueOptions.defaults());
    Job before = admin.get(available).orElseThrow();
    JobAdmin.RunNowResult r = admin.runNow(available, null);
    assertThat(r.outcome()).isEqualTo(JobAdmin.RunNowOutcome.ALREADY_AVAILABLE);
    assertThat(r.job()).isEqualTo(before);

    long running = enqueue("run_now_running", EnqueueOptions.defaults());
    set(running, "state = 'running', attempt = 1, lease_expires_at = now() + interval '5 minutes'");
    assertThat(admin.runNow(running, null).outcome()).isEqualTo(JobAdmin.RunNowOutcome.NOT_WAITING);

    long discarded = enqueue("run_now_discarded", EnqueueOptions.defaults());
    set(discarded, "state = 'discarded', attempt = max_attempts, finalized_at = now()");
    JobAdmin.RunNowResult d = admin.runNow(discarded, null);
    assertThat(d.outcome()).isEqualTo(JobAdmin.RunNowOutcome.NOT_WAITING);
    assertThat(d.previousState()).isEqualTo(JobState.DISCARDED);
    assertThat(d.job().state()).isEqualTo(JobState.DISCARDED);
    assertThat(d.job().metadata().has("retried_at")).isFalse();
  }

  @Test
  void runNowOfAnUnknownIdReportsNotFound() {
    JobAdmin.RunNowResult r = admin.runNow(Long.MAX_VALUE, null);
    assertThat(r.outcome()).isEqualTo(JobAdmin.RunNowOutcome.NOT_FOUND);
    assertThat(r.job()).isNull();
  }

  @Test
  void aClaimThatWinsTheRowLockWinsOverRunNow() throws Exception {
    long id = scheduled("run_now_race");
    try (Connection claim = f.dataSource().getConnection()) {
      claim.setAutoCommit(false);
      try (PreparedStatement ps =
          claim.prepareStatement(
              "UPDATE "
                  + f.schema()
                  + ".job SET state = 'running', attempt = attempt + 1, attempted_by = 'node-a',"
                  + " lease_expires_at = now() + interval '5 minutes' WHERE id = ?")) {
        ps.setLong(1, id);
        assertThat(ps.executeUpdate()).isEqualTo(1);
      }
      CompletableFuture<JobAdmin.RunNowResult> result =
          CompletableFuture.supplyAsync(() -> admin.runNow(id, "racer"));
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
      JobAdmin.RunNowResult r = result.get(10, TimeUnit.SECONDS);
      assertThat(r.outcome()).isEqualTo(JobAdmin.RunNowOutcome.NOT_WAITING);
      assertThat(r.previousState()).isEqualTo(JobState.RUNNING);
    }
    Job after = admin.get(id).orElseThrow();
    assertThat(after.state()).isEqualTo(JobState.RUNNING);
    assertThat(after.metadata().has("retried_at")).isFalse();
  }

  @Test
  void cancelCancelsAWaitingJobAndReportsNothingForAFinalOrUnknownOne() {
    long id = enqueue("cancel_waiting", EnqueueOptions.defaults());
    assertThat(admin.cancel(id)).contains(JobState.CANCELLED);
    assertThat(admin.get(id).orElseThrow().state()).isEqualTo(JobState.CANCELLED);
    assertThat(admin.cancel(id)).isEmpty();
    assertThat(admin.cancel(Long.MAX_VALUE)).isEmpty();
  }

  @Test
  void pauseAndResumeTellEveryNodeAsAClientDoes() throws Exception {
    String control = f.schema() + "_control";
    String insert = f.schema() + "_insert";
    try (Connection listener = f.dataSource().getConnection();
        Statement st = listener.createStatement()) {
      st.execute("LISTEN " + control);
      st.execute("LISTEN " + insert);
      PGConnection pg = listener.unwrap(PGConnection.class);

      admin.pause("mail", "ops@example.com");
      assertThat(notifications(pg, 1))
          .containsExactly(control + " {\"action\" : \"queue_paused\", \"queue\" : \"mail\"}");
      QueueInfo q = queue("mail");
      assertThat(q.paused()).isTrue();
      assertThat(q.pausedBy()).isEqualTo("ops@example.com");

      admin.pause("mail", "someone else");
      assertThat(queue("mail").pausedBy()).isEqualTo("ops@example.com");
      notifications(pg, 1); // a pause of a paused queue is announced again; nodes ignore it

      assertThat(admin.resume("mail", "ops@example.com")).isTrue();
      assertThat(notifications(pg, 2))
          .containsExactlyInAnyOrder(
              control + " {\"action\" : \"queue_resumed\", \"queue\" : \"mail\"}",
              insert + " mail");
      assertThat(queue("mail").paused()).isFalse();
      assertThat(admin.resume("mail", "ops@example.com")).isFalse();
    }
  }

  @Test
  void aBadQueueNameIsRefusedBeforeAnyStatement() {
    assertThatThrownBy(() -> admin.pause("no spaces", null))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("queue name");
    assertThatThrownBy(() -> admin.resume("", null)).isInstanceOf(InvalidConfigException.class);
  }

  @Test
  void aClientsOperatorMethodsAreThisApis() {
    Baton client =
        Baton.builder(f.dataSource())
            .config(BatonConfig.builder().schema(f.schema()).nodeId("client-1").build())
            .build();
    client.pauseQueue("reports");
    assertThat(client.queues()).isEqualTo(admin.queues());
    assertThat(queue("reports").pausedBy()).isEqualTo("client-1");
    assertThat(client.nodes()).isEqualTo(admin.nodes());
    assertThat(client.leader()).isEqualTo(admin.leader());
    assertThat(client.resumeQueue("reports")).isTrue();
    long id = enqueue("client_reads", EnqueueOptions.defaults());
    assertThat(client.job(id)).isEqualTo(admin.get(id));
    assertThat(client.cancel(id)).contains(JobState.CANCELLED);
  }

  @Test
  void aClientReadsJobsWithItsOwnMapperAndTheAdminWithExactDecimals() {
    long id =
        admin.enqueue("decimals", json("{\"amount\": 1.10}"), EnqueueOptions.defaults()).job().id();
    Baton client =
        Baton.builder(f.dataSource())
            .config(BatonConfig.builder().schema(f.schema()).build())
            .build();
    assertThat(client.job(id).orElseThrow().args().path("amount").isDouble()).isTrue();
    assertThat(admin.get(id).orElseThrow().args().path("amount").isBigDecimal()).isTrue();
  }

  @Test
  void statsAndCompletionsAreStatsAdmins() {
    enqueue("stats_waiting", EnqueueOptions.builder().queue("stats").build());
    StatsAdmin stats = new StatsAdmin(f.dataSource(), f.schema());
    assertThat(admin.stats())
        .extracting(StatsAdmin.QueueStats::queue, StatsAdmin.QueueStats::available)
        .isEqualTo(
            stats.queues().stream()
                .map(q -> org.assertj.core.groups.Tuple.tuple(q.queue(), q.available()))
                .toList());
    assertThat(admin.completions(Duration.ofHours(1), Duration.ofMinutes(5)))
        .isEqualTo(stats.completions(Duration.ofHours(1), Duration.ofMinutes(5)));
    assertThat(admin.periodic()).isEmpty();
  }

  private static QueueInfo queue(String name) {
    return admin.queues().stream()
        .filter(q -> q.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no queue " + name));
  }

  private static List<String> notifications(PGConnection pg, int expected) throws Exception {
    List<String> out = new ArrayList<>();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (out.size() < expected && System.nanoTime() < deadline) {
      PGNotification[] got = pg.getNotifications(500);
      if (got != null) {
        for (PGNotification n : got) {
          out.add(n.getName() + " " + n.getParameter());
        }
      }
    }
    return out;
  }
}
