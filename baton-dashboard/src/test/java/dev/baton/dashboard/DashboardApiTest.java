package dev.baton.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.admin.JobBrowser;
import dev.baton.testing.Fixture;
import java.net.InetSocketAddress;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The dashboard over HTTP (a real server on a real schema): every endpoint answers bad input with a
 * 4xx and a message naming what was wrong, never a stack trace; actions keep the admin API's state
 * checks and are idempotent; changes need the CSRF token, credentials when auth is on, and a
 * dashboard that is not read-only; user data renders as text.
 */
class DashboardApiTest {
  private static Fixture f;
  private static DashboardServer server;
  private static WebClient web;

  @BeforeAll
  static void serve() {
    f = new Fixture();
    server =
        Dashboard.builder(f.reader(), f.dataSource())
            .build()
            .serve(new InetSocketAddress("127.0.0.1", 0));
    web = new WebClient(server.uri());
  }

  @AfterAll
  static void close() {
    server.close();
    f.close();
  }

  @Test
  void theOverviewCarriesEachQueuesBacklogCap() throws Exception {
    Seed.discarded(f, "capped_q", "{}");
    f.execute(
        "INSERT INTO %s.queue (name, backlog_cap) VALUES ('capped_q', 40)"
            + " ON CONFLICT (name) DO UPDATE SET backlog_cap = 40");
    String body = web.get("/api/overview").body();
    assertThat(body).containsPattern("\"queue\":\"capped_q\"[^}]*\"backlog_cap\":40");
  }

  /** One bad request and what its answer must say. */
  record Bad(String method, String path, int status, String says) {}

  @Test
  void everyEndpointAnswersBadInputWith4xxAndAMessageNeverAStackTrace() throws Exception {
    long discarded = Seed.discarded(f, "mail", "{}");
    Seed.discarded(f, "mail", "{}");
    String body = web.get("/api/jobs?state=discarded&limit=1").body();
    String otherStateCursor = body.replaceAll("(?s).*\"next\":\"([^\"]+)\".*", "$1");
    List<Bad> bad =
        List.of(
            new Bad("GET", "/api/jobs?limit=0", 400, "limit: expected a page size 1..500, got 0"),
            new Bad("GET", "/api/jobs?limit=501", 400, "got 501"),
            new Bad("GET", "/api/jobs?limit=ten", 400, "limit: expected a page size"),
            new Bad(
                "GET", "/api/jobs?state=done", 400, "state: expected one of pending, scheduled"),
            new Bad("GET", "/api/jobs?queue=no%20spaces", 400, "queue: expected a queue name"),
            new Bad("GET", "/api/jobs?kind=%3Cb%3E", 400, "kind: expected a kind"),
            new Bad("GET", "/api/jobs?id=-4", 400, "id: expected a job id"),
            new Bad("GET", "/api/jobs?id=x1", 400, "id: expected a job id"),
            new Bad("GET", "/api/jobs?key=" + "k".repeat(256), 400, "key: expected"),
            new Bad("GET", "/api/jobs?after=%25%25%25", 400, "invalid page cursor"),
            new Bad("GET", "/api/jobs?after=" + otherStateCursor, 400, "another state"),
            new Bad("GET", "/jobs?state=done", 400, "state: expected one of"),
            new Bad("GET", "/api/jobs/999999", 404, "no job with id 999999"),
            new Bad("GET", "/jobs/999999", 404, "no job with id 999999"),
            new Bad("GET", "/api/jobs/abc", 400, "id: expected a job id"),
            new Bad("GET", "/api/nowhere", 404, "no page at"),
            new Bad("GET", "/assets/missing.js", 404, "no page at"),
            new Bad(
                "GET",
                "/jobs/bulk?state=discarded",
                400,
                "action: expected retry, run, cancel or delete"),
            new Bad("GET", "/jobs/bulk?action=retry", 400, "retry applies to jobs in state"),
            new Bad("DELETE", "/api/jobs/1", 405, "method DELETE is not allowed"),
            new Bad("POST", "/api/jobs/999999/retry", 404, "no job with id 999999"),
            new Bad("POST", "/api/jobs/999999/cancel", 404, "no job with id 999999"),
            new Bad("POST", "/api/jobs/999999/delete", 404, "no job with id 999999"),
            new Bad("POST", "/api/jobs/999999/run", 404, "no job with id 999999"),
            new Bad("POST", "/api/jobs/" + discarded + "/explode", 404, "no job action"),
            new Bad("POST", "/api/jobs/x/retry", 400, "id: expected a job id"),
            new Bad("POST", "/api/queues/bad%20name/pause", 400, "queue: expected a queue name"),
            new Bad("POST", "/api/queues/mail/fly", 404, "no queue action"),
            new Bad("POST", "/api/jobs/bulk?action=retry", 400, "retry applies to jobs in state"),
            new Bad("POST", "/api/jobs/bulk?action=retry&state=running", 400, "got running"),
            new Bad(
                "POST",
                "/api/jobs/bulk?action=burn&state=discarded",
                400,
                "retry, run, cancel or delete"),
            new Bad("POST", "/api/nowhere", 404, "no action at"));
    for (Bad b : bad) {
      HttpResponse<String> r =
          b.method().equals("POST")
              ? web.post(b.path())
              : web.send(
                  HttpRequest.newBuilder(server.uri().resolve(b.path()))
                      .method(b.method(), HttpRequest.BodyPublishers.noBody()));
      assertThat(r.statusCode()).as(b.toString()).isEqualTo(b.status());
      assertThat(r.body()).as(b.toString()).contains(b.says().replace("\"", "&quot;"));
      assertThat(r.body()).as(b.toString()).doesNotContain("Exception", "\tat ", "dev.baton.");
    }
    assertThat(web.get("/api/jobs?limit=500").statusCode()).isEqualTo(200);
  }

  @Test
  void aPageWhoseScanBudgetRanOutSaysHowFarItSearchedAndSearchesOn() throws Exception {
    // A schema of its own: more jobs than one page's scan budget, none of the kind asked for.
    try (Fixture many = new Fixture();
        DashboardServer s =
            Dashboard.builder(many.reader(), many.dataSource())
                .build()
                .serve(new InetSocketAddress("127.0.0.1", 0))) {
      many.execute(
          "INSERT INTO %s.job (queue, kind) SELECT 'many', 'k' FROM generate_series(1, "
              + (JobBrowser.SCAN_BUDGET + 10)
              + ")");
      long oldest = many.count("SELECT min(id) FROM " + many.schema() + ".job");
      WebClient w = new WebClient(s.uri());
      String first = w.get("/api/jobs?kind=none").body();
      assertThat(first)
          .contains("\"jobs\":[]")
          .contains("\"scanLimited\":true")
          .contains("\"rowsRead\":" + JobBrowser.SCAN_BUDGET)
          .contains("\"lastId\":" + (oldest + 10));
      String next = first.replaceAll("(?s).*\"next\":\"([^\"]+)\".*", "$1");
      String last = w.get("/api/jobs?kind=none&after=" + next).body();
      assertThat(last)
          .contains("\"jobs\":[]")
          .contains("\"next\":null")
          .contains("\"scanLimited\":false")
          .contains("\"searchedUpTo\":null");
      String html = w.get("/jobs?kind=none").body();
      assertThat(html)
          .contains("No matches among the 20,000 jobs searched, back to ")
          .contains("(job " + (oldest + 10) + ")")
          .contains("search older →")
          .containsPattern("id=\"next\" href=\"[^\"]*after=" + next)
          .doesNotContain("No jobs match.");
      assertThat(w.get("/jobs?kind=none&after=" + next).body())
          .contains("No jobs match.")
          .doesNotContain("scan-limited");
    }
  }

  @Test
  void actionsKeepTheirStateChecksAndAreIdempotent() throws Exception {
    long id = Seed.discarded(f, "twice", "{}");
    assertThat(web.post("/api/jobs/" + id + "/retry").body()).contains("\"outcome\":\"retried\"");
    HttpResponse<String> again = web.post("/api/jobs/" + id + "/retry");
    assertThat(again.statusCode()).isEqualTo(200);
    assertThat(again.body()).contains("\"outcome\":\"already_available\"");
    assertThat(Seed.state(f, id)).isEqualTo("available");

    long running = Seed.running(f, "twice");
    HttpResponse<String> del = web.post("/api/jobs/" + running + "/delete");
    assertThat(del.statusCode()).isEqualTo(409);
    assertThat(del.body()).contains("a running job is not deleted");
    assertThat(Seed.state(f, running)).isEqualTo("running");
    HttpResponse<String> cancel = web.post("/api/jobs/" + running + "/cancel");
    assertThat(cancel.statusCode()).isEqualTo(202);
    assertThat(cancel.body()).contains("cancel_requested");

    long scheduled = Seed.scheduled(f, "twice");
    assertThat(web.post("/api/jobs/" + scheduled + "/run").body()).contains("\"run_now\"");
    assertThat(web.post("/api/jobs/" + scheduled + "/run").body())
        .contains("\"already_available\"");
    assertThat(web.post("/api/jobs/" + scheduled + "/cancel").body()).contains("\"cancelled\"");
    assertThat(web.post("/api/jobs/" + scheduled + "/cancel").body())
        .contains("\"already_cancelled\"");
    assertThat(web.post("/api/jobs/" + scheduled + "/delete").statusCode()).isEqualTo(200);
    assertThat(web.post("/api/jobs/" + scheduled + "/delete").statusCode()).isEqualTo(404);

    // A page's second submission of a delete lands on the list with a message, not an error.
    long other = Seed.discarded(f, "twice", "{}");
    String form = "csrf=" + web.token();
    assertThat(web.postForm("/jobs/" + other + "/delete", form).statusCode()).isEqualTo(303);
    HttpResponse<String> second = web.postForm("/jobs/" + other + "/delete", form);
    assertThat(second.statusCode()).isEqualTo(303);
    assertThat(second.headers().firstValue("Location").orElse(""))
        .startsWith("/jobs?done=not_found");

    assertThat(web.post("/api/queues/twice/pause").body()).contains("\"paused\"");
    assertThat(web.post("/api/queues/twice/resume").body()).contains("\"resumed\"");
    assertThat(web.post("/api/queues/twice/resume").body()).contains("\"not_paused\"");
  }

  @Test
  void bulkRetryTouchesTheFilteredSetOnceAndASecondSubmissionNothing() throws Exception {
    for (int i = 0; i < 5; i++) {
      Seed.discarded(f, "bulk", "{}");
    }
    Seed.discarded(f, "bulk-other", "{}");
    String confirm = web.get("/jobs/bulk?action=retry&state=discarded&queue=bulk").body();
    assertThat(confirm).contains("5 jobs match this filter");
    String form = "csrf=" + web.token() + "&action=retry&state=discarded&queue=bulk&expected=5";
    HttpResponse<String> first = web.postForm("/jobs/bulk", form);
    assertThat(first.statusCode()).isEqualTo(303);
    assertThat(first.headers().firstValue("Location").orElse("")).contains("done=bulk_retry&n=5&");
    assertThat(f.count("SELECT count(*) FROM %s.job WHERE queue = 'bulk' AND state = 'available'"))
        .isEqualTo(5);
    assertThat(
            f.count(
                "SELECT count(*) FROM %s.job WHERE queue = 'bulk-other'"
                    + " AND state = 'discarded'"))
        .isEqualTo(1);
    HttpResponse<String> second = web.postForm("/jobs/bulk", form);
    assertThat(second.headers().firstValue("Location").orElse("")).contains("done=bulk_retry&n=0&");
  }

  @Test
  void jobsSelectedOnAPageAreCancelledInOneSubmissionAndASecondChangesNothing() throws Exception {
    long a = Seed.available(f, "selected");
    long b = Seed.scheduled(f, "selected");
    long untouched = Seed.available(f, "selected");
    String page = web.get("/jobs?queue=selected").body();
    assertThat(page).contains("name=\"ids\" value=\"" + a + "\"", "value=\"cancel\"");
    String form = "csrf=" + web.token() + "&queue=selected&action=cancel&ids=" + a + "&ids=" + b;
    HttpResponse<String> first = web.postForm("/jobs/bulk", form);
    assertThat(first.statusCode()).isEqualTo(303);
    assertThat(first.headers().firstValue("Location").orElse(""))
        .startsWith("/jobs?queue=selected&limit=50&done=bulk_cancel&n=2&");
    assertThat(Seed.state(f, a)).isEqualTo("cancelled");
    assertThat(Seed.state(f, b)).isEqualTo("cancelled");
    assertThat(Seed.state(f, untouched)).isEqualTo("available");
    HttpResponse<String> second = web.postForm("/jobs/bulk", form);
    assertThat(second.headers().firstValue("Location").orElse("")).contains("&n=0&skipped=2");
  }

  @Test
  void anActionWithoutTheCsrfTokenOrFromAnotherOriginIsRefused() throws Exception {
    long id = Seed.discarded(f, "csrf", "{}");
    HttpResponse<String> noField = web.postForm("/jobs/" + id + "/retry", "");
    assertThat(noField.statusCode()).isEqualTo(403);
    assertThat(noField.body()).contains("CSRF token");
    HttpResponse<String> wrong = web.postForm("/jobs/" + id + "/retry", "csrf=x" + web.token());
    assertThat(wrong.statusCode()).isEqualTo(403);
    HttpResponse<String> foreign =
        web.postForm(
            "/jobs/" + id + "/retry", "csrf=" + web.token(), "Origin", "http://evil.example");
    assertThat(foreign.statusCode()).isEqualTo(403);
    assertThat(foreign.body()).contains("not this dashboard");
    assertThat(Seed.state(f, id)).isEqualTo("discarded");
  }

  @Test
  void userDataRendersAsText() throws Exception {
    long id = Seed.discarded(f, "xss", Seed.SCRIPT_ARGS);
    for (String page : List.of("/jobs/" + id, "/jobs?queue=xss")) {
      String html = web.get(page).body();
      assertThat(html).contains("&lt;script&gt;window.pwned = 1&lt;/script&gt;");
      assertThat(html).doesNotContain("<script>window", "\" onmouseover");
    }
    assertThat(web.get("/jobs/" + id).body()).contains("smtp &lt;b&gt;down&lt;/b&gt;");
  }

  @Test
  void withAuthOnARequestWithoutCredentialsGets401AndReadOnlyRefusesChanges() throws Exception {
    String token = "s3cret-token-of-the-test";
    try (DashboardServer guarded =
            Dashboard.builder(f.reader(), f.dataSource())
                .auth(DashboardAuth.bearerToken(token))
                .build()
                .serve(new InetSocketAddress("127.0.0.1", 0));
        DashboardServer basic =
            Dashboard.builder(f.reader(), f.dataSource())
                .auth(DashboardAuth.basic("ops", "pw"))
                .readOnly()
                .build()
                .serve(new InetSocketAddress("127.0.0.1", 0))) {
      WebClient anonymous = new WebClient(guarded.uri());
      // The style and script of the 401 page itself load; nothing else does.
      assertThat(anonymous.get("/assets/dashboard.css").statusCode()).isEqualTo(200);
      for (String path : List.of("/", "/api/jobs", "/jobs/1")) {
        HttpResponse<String> r = anonymous.get(path);
        assertThat(r.statusCode()).as(path).isEqualTo(401);
        assertThat(r.headers().firstValue("WWW-Authenticate")).contains("Bearer realm=\"baton\"");
      }
      HttpResponse<String> wrong =
          anonymous.send(
              HttpRequest.newBuilder(guarded.uri().resolve("/api/jobs"))
                  .header("Authorization", "Bearer nope-nope-nope-nope"));
      assertThat(wrong.statusCode()).isEqualTo(401);
      HttpResponse<String> ok =
          anonymous.send(
              HttpRequest.newBuilder(guarded.uri().resolve("/api/jobs"))
                  .header("Authorization", "Bearer " + token));
      assertThat(ok.statusCode()).isEqualTo(200);

      assertThat(new WebClient(basic.uri()).get("/").statusCode()).isEqualTo(401);
      String credentials =
          "Basic " + java.util.Base64.getEncoder().encodeToString("ops:pw".getBytes());
      long id = Seed.discarded(f, "guarded", "{}");
      HttpResponse<String> readOnly =
          anonymous.send(
              HttpRequest.newBuilder(basic.uri().resolve("/api/jobs/" + id + "/retry"))
                  .header("Authorization", credentials)
                  .header("Cookie", "baton_csrf=abcdefghijklmnopqrstuvwx")
                  .header("X-Baton-Csrf", "abcdefghijklmnopqrstuvwx")
                  .POST(HttpRequest.BodyPublishers.noBody()));
      assertThat(readOnly.statusCode()).isEqualTo(403);
      assertThat(readOnly.body()).contains("read-only");
      assertThat(Seed.state(f, id)).isEqualTo("discarded");
    }
  }
}
