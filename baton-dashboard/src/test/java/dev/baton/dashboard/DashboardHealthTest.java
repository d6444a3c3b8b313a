package dev.baton.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testing.Fixture;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What the overview says about the cluster and each queue, on a schema of its own: live and stale
 * nodes, a queue with waiting jobs and no live node flagged, failure shares with their sample sizes
 * and rescues counted apart; failures grouped with their root cause and a job to open; the user who
 * acted recorded and shown.
 */
class DashboardHealthTest {
  private static Fixture f;
  private static DashboardServer server;
  private static WebClient web;

  @BeforeAll
  static void serve() {
    f = new Fixture();
    server =
        Dashboard.builder(f.reader(), f.dataSource())
            .auth(DashboardAuth.basic("ops-anna", "pw"))
            .build()
            .serve(new InetSocketAddress("127.0.0.1", 0));
    web = WebClient.basicAuth(server.uri(), "ops-anna", "pw");
  }

  @AfterAll
  static void close() {
    server.close();
    f.close();
  }

  private static void node(String id, String queues, String heartbeatAgo) {
    f.execute(
        "INSERT INTO %s.node (id, host, pid, queues, version, started_at, heartbeat_at) VALUES ('"
            + id
            + "', 'h', 1, '"
            + queues
            + "', 'v', now() - interval '1 hour', now() - interval '"
            + heartbeatAgo
            + "')");
  }

  private static String row(String page, String queue) {
    return page.replaceAll("(?s).*(<tr data-queue=\"" + queue + "\".*?</tr>).*", "$1");
  }

  @Test
  void aQueueWithWaitingJobsAndNoLiveNodeIsFlaggedAndNodesAreCountedLiveOrStale() throws Exception {
    node("node-live", "{worked}", "2 seconds");
    node("node-dead", "{orphaned}", "10 minutes");
    Seed.available(f, "worked");
    Seed.available(f, "orphaned");

    String page = web.get("/").body();

    assertThat(page).contains("data-alive=\"1\"", "data-stale=\"1\"", "id=\"unworked\"");
    assertThat(row(page, "orphaned")).contains("class=\"flag\"", "none live");
    assertThat(row(page, "worked")).doesNotContain("flag", "none live");
    String api = web.get("/api/overview").body();
    assertThat(api).contains("\"nodesAlive\":1", "\"nodesStale\":1");
  }

  @Test
  void failureSharesCarryTheirSampleSizeAndRescuesAreCountedApart() throws Exception {
    f.execute(
        "INSERT INTO %s.job (queue, kind, state, attempt, attempted_at, finalized_at)"
            + " SELECT 'shares', 'k', 'completed', 1, now(), now() FROM generate_series(1, 30)");
    for (int i = 0; i < 10; i++) {
      Seed.discarded(f, "shares", "{}");
    }
    // A dead node's job: a rescue, no handler failed.
    f.execute(
        "INSERT INTO %s.job (queue, kind, state, attempt, scheduled_at, errors) VALUES"
            + " ('rescues', 'k', 'retryable', 0, now(), jsonb_build_array(jsonb_build_object("
            + "'attempt', 1, 'at', now(), 'error', 'node_gone', 'message', 'node n is gone')))");

    String page = web.get("/").body();

    assertThat(row(page, "shares")).contains("25.0% of 40").contains("num bad");
    String rescues = row(page, "rescues");
    assertThat(rescues).doesNotContain("100.0%");
    assertThat(rescues).contains("/failures?queue=rescues\">1</a>");
  }

  @Test
  void everyQueuesCompletionsShareOneScale() throws Exception {
    for (String[] q : new String[][] {{"busy", "40"}, {"quiet", "4"}}) {
      f.execute(
          "INSERT INTO %s.job (queue, kind, state, attempt, attempted_at, finalized_at)"
              + " SELECT '"
              + q[0]
              + "', 'k', 'completed', 1, now(), now() FROM generate_series(1, "
              + q[1]
              + ")");
    }
    String page = web.get("/").body();
    assertThat(tallestBar(row(page, "busy"))).isEqualTo(28);
    assertThat(tallestBar(row(page, "quiet"))).isEqualTo(3);
  }

  private static int tallestBar(String row) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("<rect [^>]*height=\"(\\d+)\"").matcher(row);
    int max = 0;
    while (m.find()) {
      max = Math.max(max, Integer.parseInt(m.group(1)));
    }
    return max;
  }

  @Test
  void waitAndRunTimesArePercentilesPerQueueAndKindOfAWindow() throws Exception {
    f.execute(
        "INSERT INTO %s.job (queue, kind, state, attempt, scheduled_at, attempted_at, finalized_at)"
            + " SELECT 'timed', 'report', 'completed', 1, now() - interval '3 seconds',"
            + " now() - interval '2 seconds', now() FROM generate_series(1, 5)");
    String page = web.get("/times?window=24h").body();
    assertThat(page)
        .contains("data-queue=\"timed\" data-kind=\"report\"")
        .contains("class=\"current\">last 24h");
    assertThat(web.get("/api/times").body()).contains("\"kind\":\"report\"", "\"sampled\":5");
    assertThat(web.get("/times?window=2y").statusCode()).isEqualTo(400);
  }

  @Test
  void failuresAreGroupedWithTheirRootCauseAndLeadToAJob() throws Exception {
    long id =
        f.count(
            "INSERT INTO %s.job (queue, kind, state, attempt, finalized_at, errors) VALUES"
                + " ('triage', 'charge', 'discarded', 1, now(), jsonb_build_array(jsonb_build_object("
                + "'attempt', 1, 'at', now(), 'error', 'java.lang.IllegalStateException',"
                + " 'message', 'charge failed', 'trace', 'java.lang.IllegalStateException: charge"
                + " failed' || chr(10) || 'Caused by: java.net.ConnectException: refused')))"
                + " RETURNING id");

    String failures = web.get("/failures?queue=triage").body();
    assertThat(failures)
        .contains("java.lang.IllegalStateException", "java.net.ConnectException")
        .contains("/jobs/" + id + "\">" + id + "</a>");
    String list = web.get("/jobs?queue=triage").body();
    assertThat(list).contains("caused by java.net.ConnectException: refused", "charge failed");
    assertThat(web.get("/failures?queue=nothing-here").body()).contains("id=\"no-failures\"");
  }

  @Test
  void theAuthenticatedUserIsRecordedOnEveryActionAndShownOnAPausedQueue() throws Exception {
    HttpResponse<String> paused =
        web.postForm("/queues/audited/pause", "csrf=" + web.token(), "Origin", origin());
    assertThat(paused.statusCode()).isEqualTo(303);
    assertThat(row(web.get("/").body(), "audited")).contains("by ops-anna", " ago");
    assertThat(web.get("/api/overview").body()).contains("\"pausedBy\":\"ops-anna\"");

    long discarded = Seed.discarded(f, "audited", "{}");
    web.postForm("/jobs/" + discarded + "/retry", "csrf=" + web.token(), "Origin", origin());
    assertThat(f.job(discarded).metadata().path("retried_by").asText()).isEqualTo("ops-anna");
    long waiting = Seed.scheduled(f, "audited");
    web.postForm("/jobs/" + waiting + "/cancel", "csrf=" + web.token(), "Origin", origin());
    assertThat(f.job(waiting).metadata().path("cancel_requested_by").asText())
        .isEqualTo("ops-anna");
  }

  private static String origin() {
    return "http://" + server.uri().getAuthority();
  }
}
