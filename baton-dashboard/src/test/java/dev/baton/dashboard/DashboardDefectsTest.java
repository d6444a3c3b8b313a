package dev.baton.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.baton.admin.BatonAdmin;
import dev.baton.testing.Fixture;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The defects an operator's session found, one test each, over HTTP on a real schema: what a
 * read-only dashboard offers, a missing schema or database, the action banner, token mode in a
 * browser, a resumed unknown queue, previews of text outside the Basic Multilingual Plane, bulk
 * retry where it does nothing, a rescued job's page.
 */
class DashboardDefectsTest {
  private static final String TOKEN = "defects-test-token-0123456789";

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
  void aReadOnlyDashboardOffersNoBulkActionAndCountsNothingForOne() throws Exception {
    Seed.discarded(f, "readonly", "{}");
    try (DashboardServer s =
        Dashboard.builder(f.reader(), f.dataSource())
            .readOnly()
            .build()
            .serve(new InetSocketAddress("127.0.0.1", 0))) {
      WebClient w = new WebClient(s.uri());
      HttpResponse<String> confirm = w.get("/jobs/bulk?action=delete&state=discarded");
      assertThat(confirm.statusCode()).isEqualTo(403);
      assertThat(confirm.body()).contains("read-only").doesNotContain("match", "<button");
      assertThat(w.get("/jobs?state=discarded").body()).doesNotContain("bulk-", "name=\"csrf\"");
    }
  }

  @Test
  void aDashboardOnAMissingSchemaAnswersAClearPageAtOnce() throws Exception {
    Dashboard missing =
        Dashboard.builder(new BatonAdmin(f.dataSource(), "no_such_schema_h35")).build();
    try (DashboardServer own = missing.serve(new InetSocketAddress("127.0.0.1", 0))) {
      HttpResponse<String> page = new WebClient(own.uri()).get("/jobs");
      assertThat(page.statusCode()).isEqualTo(503);
      assertThat(page.body()).contains("no_such_schema_h35", "baton migrate");
    }

    HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    http.createContext("/baton", missing.handler());
    http.start();
    try {
      WebClient w =
          new WebClient(URI.create("http://127.0.0.1:" + http.getAddress().getPort() + "/baton/"));
      HttpResponse<String> page = w.get("/baton/");
      assertThat(page.statusCode()).isEqualTo(503);
      assertThat(page.body()).contains("no_such_schema_h35", "baton migrate");
      HttpResponse<String> api = w.get("/baton/api/overview");
      assertThat(api.statusCode()).isEqualTo(503);
      assertThat(api.body()).contains("no_such_schema_h35");
    } finally {
      http.stop(0);
    }
  }

  @Test
  void aDashboardOnAMissingDatabaseAnswersThatItCannotReachIt() throws Exception {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(f.db().jdbcUrl().replaceFirst("/([^/?]+)(\\?|$)", "/no_such_database_h35$2"));
    BatonAdmin admin = new BatonAdmin(ds, "baton");
    // Who wants the dashboard to fail at start checks first, as the baton command does.
    assertThatThrownBy(admin::requireLatestSchema).hasMessageContaining("no_such_database_h35");
    try (DashboardServer own =
        Dashboard.builder(admin).build().serve(new InetSocketAddress("127.0.0.1", 0))) {
      HttpResponse<String> api = new WebClient(own.uri()).get("/api/overview");
      assertThat(api.statusCode()).isEqualTo(503);
      assertThat(api.body()).contains("cannot reach its database");
    }
  }

  @Test
  void theBannerShowsOnlyMessagesTheDashboardWroteNeverTextFromTheAddress() throws Exception {
    String page = web.get("/?msg=Your%20account%20is%20locked%3B%20call%20555-0100").body();
    assertThat(page).doesNotContain("account is locked", "class=\"message\"");

    long id = Seed.discarded(f, "banner", "{}");
    HttpResponse<String> retried =
        web.postForm("/jobs/" + id + "/retry", "csrf=" + web.token(), "Origin", origin());
    assertThat(retried.statusCode()).isEqualTo(303);
    String location = retried.headers().firstValue("Location").orElseThrow();
    assertThat(location).doesNotContain("msg=");
    assertThat(web.get(location).body()).contains("class=\"message\"", "job " + id + " retried");
    // A known message with a parameter that is not a job id shows nothing.
    assertThat(web.get("/jobs/" + id + "?done=retried&job=%3Cb%3E").body())
        .doesNotContain("class=\"message\"");
  }

  @Test
  void tokenModeWorksFromABrowserThroughASignInFormAndAnyCaseOfBearer() throws Exception {
    try (DashboardServer s =
        Dashboard.builder(f.reader(), f.dataSource())
            .auth(DashboardAuth.bearerToken(TOKEN))
            .build()
            .serve(new InetSocketAddress("127.0.0.1", 0))) {
      WebClient anonymous = new WebClient(s.uri());
      HttpResponse<String> refused = anonymous.get("/jobs");
      assertThat(refused.statusCode()).isEqualTo(401);
      assertThat(refused.body()).contains("<form", "name=\"token\"");
      // The 401 page's own style and script load.
      assertThat(anonymous.get("/assets/dashboard.css").statusCode()).isEqualTo(200);
      assertThat(anonymous.get("/assets/dashboard.js").statusCode()).isEqualTo(200);

      assertThat(new WebClient(s.uri(), "Authorization", "bearer " + TOKEN).get("/").statusCode())
          .isEqualTo(200);
      assertThat(new WebClient(s.uri(), "Authorization", "BEARER " + TOKEN).get("/").statusCode())
          .isEqualTo(200);

      String sOrigin = "http://" + s.uri().getAuthority();
      HttpResponse<String> wrong =
          anonymous.send(
              HttpRequest.newBuilder(s.uri().resolve("/sign-in"))
                  .header("Content-Type", "application/x-www-form-urlencoded")
                  .header("Origin", sOrigin)
                  .POST(HttpRequest.BodyPublishers.ofString("token=not-the-token-at-all")));
      assertThat(wrong.statusCode()).isEqualTo(401);
      assertThat(wrong.headers().firstValue("Set-Cookie")).isEmpty();

      HttpResponse<String> signedIn =
          anonymous.send(
              HttpRequest.newBuilder(s.uri().resolve("/sign-in"))
                  .header("Content-Type", "application/x-www-form-urlencoded")
                  .header("Origin", sOrigin)
                  .POST(HttpRequest.BodyPublishers.ofString("token=" + TOKEN + "&next=/jobs")));
      assertThat(signedIn.statusCode()).isEqualTo(303);
      String cookie = signedIn.headers().firstValue("Set-Cookie").orElseThrow();
      assertThat(cookie).contains("HttpOnly", "SameSite=Strict");
      Matcher m = Pattern.compile("^([^;]+)").matcher(cookie);
      assertThat(m.find()).isTrue();
      HttpResponse<String> withCookie =
          anonymous.send(
              HttpRequest.newBuilder(s.uri().resolve("/jobs")).header("Cookie", m.group(1)).GET());
      assertThat(withCookie.statusCode()).isEqualTo(200);
      assertThat(withCookie.body()).contains("<h1>Jobs</h1>");
    }
  }

  @Test
  void aPausedThenResumedQueueNoJobHasLeavesTheOverview() throws Exception {
    assertThat(web.post("/api/queues/ghost-h35/pause").statusCode()).isEqualTo(200);
    assertThat(web.get("/api/overview").body()).contains("ghost-h35");
    assertThat(web.post("/api/queues/ghost-h35/resume").statusCode()).isEqualTo(200);
    assertThat(web.get("/api/overview").body()).doesNotContain("ghost-h35");
    assertThat(web.get("/").body()).doesNotContain("ghost-h35");
  }

  @Test
  void aPreviewNeverCutsASurrogatePair() throws Exception {
    // Shown as {"a":" (6 characters): the emoji's high surrogate is the 80th character, its low the
    // 81st.
    String args = "{\"a\": \"" + "x".repeat(73) + "\uD83D\uDE00" + "y".repeat(20) + "\"}";
    long id = Seed.discarded(f, "emoji", args);
    String row =
        web.get("/jobs?queue=emoji")
            .body()
            .replaceAll("(?s).*<tr data-id=\"" + id + "\">(.*?)</tr>.*", "$1");
    assertThat(row).contains("xxxx").doesNotContain("?", "\uFFFD");
  }

  @Test
  void bulkRetryIsOfferedOnlyWhereItChangesSomething() throws Exception {
    Seed.available(f, "bulkq");
    assertThat(web.get("/jobs?state=available&queue=bulkq").body()).doesNotContain("bulk-retry");
    HttpResponse<String> confirm = web.get("/jobs/bulk?action=retry&state=available&queue=bulkq");
    assertThat(confirm.statusCode()).isEqualTo(400);
    assertThat(confirm.body()).contains("available");
    assertThat(web.get("/jobs?state=discarded").body()).contains("bulk-retry");
  }

  @Test
  void aRescuedJobsPageCountsTheRescueApartAndNamesNoDeadNodeAsItsNode() throws Exception {
    long id =
        f.count(
            "INSERT INTO %s.job (queue, kind, state, attempt, max_attempts, attempted_at,"
                + " attempted_by, fence, metadata, errors) VALUES ('rescued', 'k', 'retryable', 0,"
                + " 3, now() - interval '1 minute', 'node-dead', 4, '{\"rescue_count\": 1}',"
                + " jsonb_build_array(jsonb_build_object('attempt', 1, 'at', now(), 'error',"
                + " 'node_gone', 'message', 'node node-dead is gone')))"
                + " RETURNING id");
    String page = web.get("/jobs/" + id).body();
    assertThat(page)
        .contains("<dt>Node</dt><dd>-</dd>")
        .contains("1 rescued")
        .doesNotContain("<dt>Attempt</dt><dd>0 of 3</dd>")
        .doesNotContain("attempt 1 failed: node_gone");
    assertThat(page).contains("attempt 1 rescued");
  }

  private static String origin() {
    return "http://" + server.uri().getAuthority();
  }
}
