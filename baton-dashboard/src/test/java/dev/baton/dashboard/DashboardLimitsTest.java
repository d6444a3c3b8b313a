package dev.baton.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testing.Fixture;
import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A queue's cluster-wide limits on the dashboard over HTTP: each kind (concurrency, per key, rate)
 * shown with how much of it is in use and the jobs waiting for them, set, changed and removed by an
 * operator whose name is logged; bad values answered with a 400 naming the field and what was
 * expected; nothing offered or taken on a read-only dashboard or without the CSRF token.
 */
class DashboardLimitsTest {
  private static Fixture f;
  private static DashboardServer server;
  private static WebClient web;

  @BeforeAll
  static void serve() {
    f = new Fixture();
    server =
        Dashboard.builder(f.reader(), f.dataSource())
            .auth(DashboardAuth.basic("ops-lia", "pw"))
            .build()
            .serve(new InetSocketAddress("127.0.0.1", 0));
    web = WebClient.basicAuth(server.uri(), "ops-lia", "pw");
  }

  @AfterAll
  static void close() {
    server.close();
    f.close();
  }

  private static HttpResponse<String> post(String queue, String action, String... pairs)
      throws Exception {
    StringBuilder form = new StringBuilder("csrf=" + web.token());
    for (int i = 0; i + 1 < pairs.length; i += 2) {
      form.append('&').append(pairs[i]).append('=');
      form.append(URLEncoder.encode(pairs[i + 1], StandardCharsets.UTF_8));
    }
    return web.postForm("/queues/" + queue + "/" + action, form.toString());
  }

  /** The overview's limits cell of {@code queue}. */
  private static String limitsCell(String queue) throws Exception {
    String page = web.get("/").body();
    int row = page.indexOf("<tr data-queue=\"" + queue + "\"");
    assertThat(row).as("row of " + queue).isPositive();
    String tr = page.substring(row, page.indexOf("</tr>", row));
    int cell = tr.indexOf("data-limits=");
    return tr.substring(tr.lastIndexOf("<td", cell), tr.indexOf("</td>", cell));
  }

  private static void keyed(String queue, String customer, String state) {
    f.execute(
        "INSERT INTO %s.job (queue, kind, args, state, lease_expires_at, attempt) VALUES ('"
            + queue
            + "', 'sync', jsonb_build_object('customer', '"
            + customer
            + "'), '"
            + state
            + "', CASE WHEN '"
            + state
            + "' = 'running' THEN now() + interval '1 hour' END, CASE WHEN '"
            + state
            + "' = 'running' THEN 1 ELSE 0 END)");
  }

  private static String column(String sql) {
    return f.db().queryString(sql.replace("%s", f.schema()));
  }

  @Test
  void anOperatorSetsChangesAndRemovesEachKindOfLimitSeenWithItsUse() throws Exception {
    keyed("lim", "acme", "running");
    keyed("lim", "acme", "available");
    keyed("lim", "bob", "available");
    assertThat(limitsCell("lim")).contains("data-limits=\"\"").endsWith(">-");

    // Who set it is the signed-in user, in the log (slf4j-simple writes to System.err).
    java.io.PrintStream err = System.err;
    java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
    HttpResponse<String> set;
    System.setErr(new java.io.PrintStream(log, true, StandardCharsets.UTF_8));
    try {
      set = post("lim", "limit", "limit", "1");
    } finally {
      System.setErr(err);
    }
    assertThat(log.toString(StandardCharsets.UTF_8))
        .contains("dashboard: queue lim limited to 1 running jobs by ops-lia");
    assertThat(set.statusCode()).isEqualTo(303);
    assertThat(set.headers().firstValue("Location").orElseThrow())
        .endsWith("done=limit_set&queue=lim&n=1");
    assertThat(web.get("/?done=limit_set&queue=lim&n=1").body())
        .contains("queue lim limited to 1 running jobs across the cluster");
    assertThat(column("SELECT concurrency_limit::text FROM %s.queue WHERE name = 'lim'"))
        .isEqualTo("1");
    assertThat(limitsCell("lim"))
        .contains("class=\"warn\" data-limit=\"concurrency\"", "1 / 1 running")
        .contains("data-waiting-for-limits=\"2\"");
    assertThat(post("lim", "limit", "limit", "3").statusCode()).isEqualTo(303);
    assertThat(limitsCell("lim"))
        .contains("class=\"ok\" data-limit=\"concurrency\"", "1 / 3 running")
        .contains("data-waiting-for-limits=\"0\"");

    assertThat(post("lim", "keylimit", "key_field", "customer", "key_limit", "1").statusCode())
        .isEqualTo(303);
    assertThat(column("SELECT key_field || ' ' || key_limit FROM %s.queue WHERE name = 'lim'"))
        .isEqualTo("customer 1");
    // acme runs 1 of 1: its second job waits; bob's may start
    assertThat(limitsCell("lim"))
        .contains(
            "data-limit=\"key\" data-field=\"customer\"", "customer: 1 per key, 1 of 1 keys full")
        .contains("busiest: acme 1</div>")
        .contains("data-waiting-for-limits=\"1\"");

    assertThat(post("lim", "rate", "rate", "5", "period", "1m").statusCode()).isEqualTo(303);
    assertThat(
            column("SELECT rate_limit || ' ' || rate_period_ms FROM %s.queue WHERE name = 'lim'"))
        .isEqualTo("5 60000");
    f.execute(
        "INSERT INTO %s.queue_start (queue, at) SELECT 'lim', now() FROM generate_series(1, 5)");
    assertThat(limitsCell("lim"))
        .contains("class=\"warn\" data-limit=\"rate\"", "5 / 5 starts per 1m")
        .contains("data-waiting-for-limits=\"2\"");
    assertThat(web.get("/api/overview").body())
        .containsPattern(
            "\"limits\":\\{\"concurrency_limit\":3,\"running\":1,\"key_field\":\"customer\","
                + "\"key_limit\":1,\"keys_running\":1,\"keys_at_limit\":1,\"rate_limit\":5,"
                + "\"rate_period_ms\":60000,\"rate_key_field\":null,\"starts_in_period\":5,\"waiting_for_limits\":2,"
                + "\"busiest_keys\":\\[\\{\"key\":\"acme\",\"running\":1\\}\\]\\}");
    // the forms show the values set, and a remove button for each limit
    String page = web.get("/").body();
    assertThat(page)
        .contains("name=\"limit\" size=\"7\" aria-label=\"lim: most running across the cluster\"")
        .contains("action=\"/queues/lim/unlimit\"", "action=\"/queues/lim/unkeylimit\"")
        .contains("action=\"/queues/lim/unrate\"");

    // a rate per key: the same form with the args field of the key, logged with who set it
    System.setErr(new java.io.PrintStream(log, true, StandardCharsets.UTF_8));
    try {
      set = post("lim", "rate", "rate", "5", "period", "1m", "rate_key_field", "customer");
    } finally {
      System.setErr(err);
    }
    assertThat(set.statusCode()).isEqualTo(303);
    assertThat(set.headers().firstValue("Location").orElseThrow())
        .endsWith("done=rate_key_set&queue=lim&n=5");
    assertThat(log.toString(StandardCharsets.UTF_8))
        .contains(
            "dashboard: queue lim limited to 5 starts per PT1M per key (args field customer) by"
                + " ops-lia");
    assertThat(
            column(
                "SELECT rate_limit || ' ' || rate_period_ms || ' ' || rate_key_field FROM %s.queue"
                    + " WHERE name = 'lim'"))
        .isEqualTo("5 60000 customer");
    assertThat(limitsCell("lim")).contains("starts per 1m per customer (busiest)");
    assertThat(web.get("/").body())
        .contains(
            "name=\"rate_key_field\" size=\"9\" aria-label=\"lim: args field of the rate&#39;s"
                + " key\" placeholder=\"per key field\" value=\"customer\">");
    // the queue is limited per key on customer: a rate per key on another field is refused
    HttpResponse<String> twoFields =
        post("lim", "rate", "rate", "5", "period", "1m", "rate_key_field", "account");
    assertThat(twoFields.statusCode()).isEqualTo(400);
    assertThat(twoFields.body())
        .contains(
            "invalid rate key field for queue lim: expected the field of its concurrency limit per"
                + " key (&quot;customer&quot;), as a queue limited per key in concurrency and in"
                + " rate has one key field, got &quot;account&quot;");
    HttpResponse<String> keyTwoFields =
        post("lim", "keylimit", "key_field", "account", "key_limit", "1");
    assertThat(keyTwoFields.statusCode()).isEqualTo(400);
    assertThat(keyTwoFields.body())
        .contains(
            "invalid key field for queue lim: expected the field of its rate limit per key"
                + " (&quot;customer&quot;)");
    assertThat(column("SELECT key_field || ' ' || rate_key_field FROM %s.queue WHERE name = 'lim'"))
        .isEqualTo("customer customer");
    // the field left empty: a rate of the whole queue again
    assertThat(post("lim", "rate", "rate", "5", "period", "1m", "rate_key_field", "").statusCode())
        .isEqualTo(303);
    assertThat(column("SELECT coalesce(rate_key_field, 'none') FROM %s.queue WHERE name = 'lim'"))
        .isEqualTo("none");

    HttpResponse<String> removed = post("lim", "unrate");
    assertThat(removed.headers().firstValue("Location").orElseThrow())
        .endsWith("done=rate_removed&queue=lim");
    assertThat(post("lim", "unkeylimit").statusCode()).isEqualTo(303);
    assertThat(post("lim", "unlimit").statusCode()).isEqualTo(303);
    assertThat(
            column(
                "SELECT coalesce(concurrency_limit, key_limit, rate_limit)::text FROM %s.queue"
                    + " WHERE name = 'lim'"))
        .isNull();
    assertThat(limitsCell("lim")).contains("data-limits=\"\"");
    assertThat(column("SELECT count(*)::text FROM %s.queue_start WHERE queue = 'lim'"))
        .as("the removed rate's starts")
        .isEqualTo("0");
    assertThat(web.post("/api/queues/lim/unrate").body()).contains("\"outcome\":\"rate_removed\"");
  }

  @Test
  void aLimitValueThatIsWrongIsAnsweredWithA400NamingTheFieldAndWhatWasExpected() throws Exception {
    record Bad(String action, List<String> form, String says) {}
    for (Bad b :
        List.of(
            new Bad(
                "limit",
                List.of("limit", "five"),
                "invalid concurrency limit for queue badlim: expected a whole number 0..1000000,"
                    + " got \"five\""),
            new Bad("limit", List.of(), "concurrency limit for queue badlim: expected a whole"),
            new Bad("limit", List.of("limit", "-1"), "0..1000000, got -1"),
            new Bad("limit", List.of("limit", "1000001"), "0..1000000, got 1000001"),
            new Bad(
                "keylimit",
                List.of("key_field", "", "key_limit", "1"),
                "invalid key field for queue badlim: expected the name of a top-level field of"
                    + " the jobs' args, 1-128 characters"),
            new Bad(
                "keylimit",
                List.of("key_field", "customer", "key_limit", "0"),
                "invalid limit per key for queue badlim: expected a whole number 1..1000000, got"
                    + " 0"),
            new Bad(
                "rate",
                List.of("rate", "0", "period", "1s"),
                "invalid rate limit for queue badlim: expected a whole number 1..1000000, got 0"),
            new Bad(
                "rate",
                List.of("rate", "5", "period", "soon"),
                "invalid rate period for queue badlim: expected a whole number with ms, s, m or h"
                    + " (such as 1s), 1ms..24h, got \"soon\""),
            new Bad("rate", List.of("rate", "5", "period", "25h"), "1ms..24h, got \"25h\""),
            new Bad("rate", List.of("rate", "5", "period", "0s"), "got \"0s\""),
            new Bad(
                "rate",
                List.of("rate", "5", "period", "1s", "rate_key_field", "x".repeat(129)),
                "invalid rate key field for queue badlim: expected the name of a top-level field"
                    + " of the jobs' args, 1-128 characters"),
            new Bad(
                "ratelimit",
                List.of(),
                "no queue action \"ratelimit\"; expected pause, resume, cap, uncap, limit"))) {
      HttpResponse<String> r = post("badlim", b.action(), b.form().toArray(String[]::new));
      int status = b.action().equals("ratelimit") ? 404 : 400;
      assertThat(r.statusCode()).as(b.toString()).isEqualTo(status);
      assertThat(r.body())
          .as(b.toString())
          .contains(b.says().replace("\"", "&quot;").replace("'", "&#39;"));
      assertThat(r.body()).as(b.toString()).doesNotContain("Exception", "\tat ");
    }
    assertThat(column("SELECT count(*)::text FROM %s.queue WHERE name = 'badlim'")).isEqualTo("0");
    Seed.available(f, "badlim");
    // Without the CSRF token, or on a read-only dashboard: refused, nothing set, nothing offered.
    assertThat(web.postForm("/queues/badlim/limit", "limit=5").statusCode()).isEqualTo(403);
    try (DashboardServer ro =
        Dashboard.builder(f.reader(), f.dataSource())
            .readOnly()
            .build()
            .serve(new InetSocketAddress("127.0.0.1", 0))) {
      WebClient w = new WebClient(ro.uri());
      for (String action :
          List.of("limit", "keylimit", "rate", "unlimit", "unkeylimit", "unrate")) {
        HttpResponse<String> r =
            w.postForm(
                "/queues/badlim/" + action,
                "csrf="
                    + w.token()
                    + "&limit=5&key_field=c&key_limit=1&rate=5&period=1s&rate_key_field=c");
        assertThat(r.statusCode()).as(action).isEqualTo(403);
        assertThat(r.body()).contains("read-only");
      }
      assertThat(w.get("/").body())
          .doesNotContain("Set limit", "Set rate", "<details class=\"limits\"");
    }
    assertThat(column("SELECT count(*)::text FROM %s.queue WHERE name = 'badlim'")).isEqualTo("0");
  }
}
