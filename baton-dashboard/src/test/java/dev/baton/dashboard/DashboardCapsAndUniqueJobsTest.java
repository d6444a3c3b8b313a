package dev.baton.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testing.Fixture;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What issue 32 brought, on the dashboard over HTTP: a queue's backlog cap shown against its
 * waiting jobs and set, changed and removed by an operator (bad values answered with a 400 and a
 * message); a job's uniqueness on its page, and a retry refused because another job holds the key
 * answered with a 409 and the reason.
 */
class DashboardCapsAndUniqueJobsTest {
  private static Fixture f;
  private static DashboardServer server;
  private static WebClient web;

  @BeforeAll
  static void serve() {
    f = new Fixture();
    server =
        Dashboard.builder(f.reader(), f.dataSource())
            .auth(DashboardAuth.basic("ops-ben", "pw"))
            .build()
            .serve(new InetSocketAddress("127.0.0.1", 0));
    web = WebClient.basicAuth(server.uri(), "ops-ben", "pw");
  }

  @AfterAll
  static void close() {
    server.close();
    f.close();
  }

  private static HttpResponse<String> setCap(String queue, String cap) throws Exception {
    return web.postForm(
        "/queues/" + queue + "/cap",
        "csrf=" + web.token() + "&cap=" + java.net.URLEncoder.encode(cap, "UTF-8"));
  }

  /** The overview's cell of {@code queue}'s waiting count and cap. */
  private static String capCell(String queue) throws Exception {
    String page = web.get("/").body();
    int row = page.indexOf("<tr data-queue=\"" + queue + "\"");
    assertThat(row).as("row of " + queue).isPositive();
    String tr = page.substring(row, page.indexOf("</tr>", row));
    int cell = tr.indexOf("data-cap=");
    return tr.substring(tr.lastIndexOf("<td", cell), tr.indexOf("</td>", cell));
  }

  @Test
  void anOperatorSetsChangesAndRemovesACapSeenAgainstTheWaitingJobs() throws Exception {
    Seed.available(f, "capped");
    Seed.available(f, "capped");
    Seed.scheduled(f, "capped");
    assertThat(capCell("capped")).contains("data-cap=\"\"").endsWith(">-");

    // Who set it is the signed-in user, in the log (slf4j-simple writes to System.err).
    java.io.PrintStream err = System.err;
    java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
    HttpResponse<String> set;
    System.setErr(new java.io.PrintStream(log, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      set = setCap("capped", "3");
    } finally {
      System.setErr(err);
    }
    assertThat(log.toString(java.nio.charset.StandardCharsets.UTF_8))
        .contains("dashboard: queue capped backlog cap set to 3 by ops-ben (was none)");
    assertThat(set.statusCode()).isEqualTo(303);
    assertThat(set.headers().firstValue("Location").orElseThrow())
        .endsWith("done=cap_set&queue=capped&n=3");
    assertThat(
            f.db()
                .queryString(
                    "SELECT backlog_cap::text FROM " + f.schema() + ".queue WHERE name = 'capped'"))
        .isEqualTo("3");
    assertThat(capCell("capped")).contains("class=\"num bad\"", "data-waiting=\"3\"", "3 / 3");
    assertThat(web.get("/?done=cap_set&queue=capped&n=3").body())
        .contains("queue capped backlog cap set to 3");

    assertThat(setCap("capped", "1,000").statusCode()).isEqualTo(303);
    assertThat(capCell("capped")).contains("class=\"num ok\"", "3 / 1,000");
    assertThat(setCap("capped", "3").statusCode()).isEqualTo(303);
    Seed.running(f, "capped"); // running jobs do not count against the cap
    assertThat(capCell("capped")).contains("class=\"num bad\"", "3 / 3");
    Seed.available(f, "capped"); // over the cap: as a retry or a lowered cap can leave it
    assertThat(capCell("capped")).contains("class=\"num bad\"", "4 / 3");
    assertThat(setCap("capped", "5").statusCode()).isEqualTo(303);
    assertThat(capCell("capped")).contains("class=\"num warn\"", "4 / 5");

    HttpResponse<String> json = web.get("/api/overview");
    assertThat(json.body())
        .containsPattern("\"queue\":\"capped\"[^}]*\"backlog_cap\":5,\"waiting\":4");

    HttpResponse<String> removed = web.postForm("/queues/capped/uncap", "csrf=" + web.token());
    assertThat(removed.statusCode()).isEqualTo(303);
    assertThat(removed.headers().firstValue("Location").orElseThrow())
        .endsWith("done=cap_removed&queue=capped");
    assertThat(capCell("capped")).contains("data-cap=\"\"");
    assertThat(web.post("/api/queues/capped/uncap").body()).contains("\"outcome\":\"no_cap\"");
  }

  @Test
  void aCapThatIsNoWholeNumberInRangeIsAnsweredWithA400AndWhatWasExpected() throws Exception {
    record Bad(String cap, String says) {}
    for (Bad b :
        List.of(
            new Bad(
                "ten",
                "invalid backlog cap for queue badcaps: expected a whole number 1..100000000, got \"ten\""),
            new Bad("", "expected a whole number 1..100000000, got none"),
            new Bad("2.5", "got \"2.5\""),
            new Bad("99999999999", "got \"99999999999\""),
            new Bad("0", "must be 1..100000000, got 0"),
            new Bad("-3", "must be 1..100000000, got -3"),
            new Bad("100000001", "must be 1..100000000, got 100000001"))) {
      HttpResponse<String> r = setCap("badcaps", b.cap());
      assertThat(r.statusCode()).as(b.toString()).isEqualTo(400);
      assertThat(r.body()).as(b.toString()).contains(b.says().replace("\"", "&quot;"));
      assertThat(r.body()).as(b.toString()).doesNotContain("Exception", "\tat ");
    }
    assertThat(
            f.db()
                .queryString(
                    "SELECT count(*)::text FROM " + f.schema() + ".queue WHERE name = 'badcaps'"))
        .isEqualTo("0");
    Seed.available(f, "badcaps");
    // Without the CSRF token, or on a read-only dashboard: refused, nothing set.
    assertThat(web.postForm("/queues/badcaps/cap", "cap=5").statusCode()).isEqualTo(403);
    try (DashboardServer ro =
        Dashboard.builder(f.reader(), f.dataSource())
            .readOnly()
            .build()
            .serve(new InetSocketAddress("127.0.0.1", 0))) {
      WebClient w = new WebClient(ro.uri());
      HttpResponse<String> r = w.postForm("/queues/badcaps/cap", "csrf=" + w.token() + "&cap=5");
      assertThat(r.statusCode()).isEqualTo(403);
      assertThat(r.body()).contains("read-only");
      assertThat(w.get("/").body()).doesNotContain("Set cap");
    }
    assertThat(
            f.db()
                .queryString(
                    "SELECT count(*)::text FROM " + f.schema() + ".queue WHERE name = 'badcaps'"))
        .isEqualTo("0");
  }

  private static long enqueueUnique(String customer) {
    dev.baton.admin.BatonAdmin admin = new dev.baton.admin.BatonAdmin(f.dataSource(), f.schema());
    return admin
        .enqueue(
            "sync_customer",
            new com.fasterxml.jackson.databind.ObjectMapper()
                .createObjectNode()
                .put("customer", customer),
            dev.baton.EnqueueOptions.builder()
                .unique(dev.baton.UniqueOptions.byArgs().build())
                .build())
        .job()
        .id();
  }

  private static void complete(long id) {
    f.execute(
        "UPDATE %s.job SET state = 'completed', attempt = 1, finalized_at = now() WHERE id = "
            + id);
  }

  @Test
  void aJobsPageSaysWhetherItIsUniqueAndARetryMeetingItsKeyIsAConflictWithTheReason()
      throws Exception {
    long plain = Seed.available(f, "plain");
    assertThat(web.get("/jobs/" + plain).body()).contains("<dd id=\"unique\">no</dd>");
    assertThat(web.get("/api/jobs/" + plain).body()).contains("\"unique\":null");

    long first = enqueueUnique("acme");
    assertThat(web.get("/jobs/" + first).body())
        .contains(
            "yes, holds its key while scheduled, available, running, retryable",
            "this job holds the key now");
    complete(first);
    assertThat(web.get("/jobs/" + first).body()).contains("no job holds the key now");
    long second = enqueueUnique("acme");
    assertThat(second).isNotEqualTo(first);
    String page = web.get("/jobs/" + first).body();
    assertThat(page).contains("href=\"/jobs/" + second + "\">job " + second + "</a> holds the key");
    assertThat(web.get("/api/jobs/" + first).body())
        .contains(
            "\"unique\":{\"states\":[\"scheduled\",\"available\",\"running\",\"retryable\"],\"holder\":"
                + second
                + "}");

    // The operator retries the finished one while the second holds the key: a conflict with the
    // reason, nothing changed.
    HttpResponse<String> form = web.postForm("/jobs/" + first + "/retry", "csrf=" + web.token());
    assertThat(form.statusCode()).isEqualTo(409);
    assertThat(form.body())
        .contains(
            "cannot retry job (id=" + first + "): another job holds its unique key",
            "it is held by job " + second)
        .doesNotContain("Exception", "\tat ", "could not answer");
    HttpResponse<String> api = web.post("/api/jobs/" + first + "/retry");
    assertThat(api.statusCode()).isEqualTo(409);
    assertThat(api.body())
        .contains("\"outcome\":\"unique_key_held\"", "another job holds its unique key");
    assertThat(Seed.state(f, first)).isEqualTo("completed");
    // In bulk, beside a job that can be retried: that one is, the unique one is left as it is.
    long other = Seed.discarded(f, "plain", "{}");
    HttpResponse<String> bulk =
        web.postForm(
            "/api/jobs/bulk?action=retry",
            "csrf=" + web.token() + "&ids=" + first + "&ids=" + other);
    assertThat(bulk.statusCode()).as(bulk.body()).isEqualTo(200);
    assertThat(bulk.body()).contains("\"done\":1,\"skipped\":1");
    assertThat(Seed.state(f, first)).isEqualTo("completed");
    assertThat(Seed.state(f, other)).isEqualTo("available");

    // Once the second has finished, the retry goes through.
    complete(second);
    assertThat(web.postForm("/jobs/" + first + "/retry", "csrf=" + web.token()).statusCode())
        .isEqualTo(303);
    assertThat(Seed.state(f, first)).isEqualTo("available");
  }
}
