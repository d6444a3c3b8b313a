package dev.baton.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testing.Fixture;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The history page: completed, failed and rescued jobs per queue over 1 hour, 24 hours or 7 days,
 * read from the leader's per-minute counts (job_stat_minute), on one scale for every queue; a range
 * it does not know is a 400 that names the ones it takes. And the kind picker that the counts feed.
 */
class DashboardHistoryTest {
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
    // minutes ago, queue, kind, completed, failed, rescued, cancelled
    f.execute(
        "INSERT INTO %s.job_stat_minute (minute, queue, kind, completed, failed, rescued, cancelled)"
            + " SELECT to_timestamp(floor(extract(epoch FROM now()) / 60) * 60)"
            + " - m * interval '1 minute', q, k, c, fl, r, x FROM (VALUES"
            + " (0, 'mail', 'send', 40, 2, 1, 0), (3, 'mail', 'bounce', 10, 0, 0, 1),"
            + " (90, 'mail', 'send', 500, 0, 0, 0), (2000, 'mail', 'send', 7000, 30, 0, 0),"
            + " (1, 'billing', 'charge', 4, 1, 0, 0)) v(m, q, k, c, fl, r, x)");
  }

  @AfterAll
  static void close() {
    server.close();
    f.close();
  }

  private static String row(String page, String queue) {
    return page.replaceAll("(?s).*(<tr data-queue=\"" + queue + "\".*?</tr>).*", "$1");
  }

  @Test
  void historyShowsEachQueuesFinishedJobsOverTheChosenRangeOnOneScale() throws Exception {
    String hour = web.get("/history?range=1h").body();
    assertThat(hour).contains("class=\"current\">last 1h", "the tallest bar: 43 jobs");
    assertThat(row(hour, "mail"))
        .contains(">50</td>", ">2</td>", ">1</td>")
        .contains("40 completed, 2 failed, 1 rescued, 0 cancelled")
        .doesNotContain("500");
    assertThat(row(hour, "billing")).contains(">4</td>", "4 completed, 1 failed");
    // one scale: billing's 4 completions stand 4 of 40 pixels beside mail's 43 jobs
    assertThat(row(hour, "billing")).contains("height=\"4\" class=\"completed\"");
    assertThat(row(hour, "mail")).contains("height=\"37\" class=\"completed\"");

    String week = web.get("/history?range=7d").body();
    assertThat(row(week, "mail")).contains(">7,550</td>", ">32</td>");

    String day = web.get("/history").body();
    assertThat(day).contains("class=\"current\">last 24h");
    assertThat(row(day, "mail")).contains(">550</td>");

    String api = web.get("/api/history?range=1h").body();
    assertThat(api).contains("\"range\":\"1h\"", "\"bucketSeconds\":60", "\"queue\":\"billing\"");
  }

  @Test
  void aRangeTheHistoryDoesNotTakeIsA400NamingTheOnesItTakes() throws Exception {
    HttpResponse<String> page = web.get("/history?range=30d");
    assertThat(page.statusCode()).isEqualTo(400);
    assertThat(page.body()).contains("expected one of 1h, 24h, 7d, got &quot;30d&quot;");
    HttpResponse<String> escaped = web.get("/history?range=%3Cb%3E");
    assertThat(escaped.statusCode()).isEqualTo(400);
    assertThat(escaped.body()).contains("got &quot;&lt;b&gt;&quot;").doesNotContain("<b>");
    HttpResponse<String> api = web.get("/api/history?range=1w");
    assertThat(api.statusCode()).isEqualTo(400);
    assertThat(api.body())
        .contains("\"error\":\"invalid parameter range: expected one of 1h, 24h, 7d")
        .doesNotContain("Exception");
  }

  @Test
  void theKindPickerOffersTheKindsThatFinishedOfTheQueueFilteredOn() throws Exception {
    String mail = web.get("/jobs?queue=mail").body();
    String kinds = mail.replaceAll("(?s).*(<datalist id=\"known-kinds\">.*?</datalist>).*", "$1");
    assertThat(kinds)
        .contains("<option value=\"bounce\">", "<option value=\"send\">")
        .doesNotContain("charge");
    assertThat(mail).contains("name=\"kind\" list=\"known-kinds\"");
    assertThat(web.get("/jobs").body())
        .contains("<option value=\"bounce\">", "<option value=\"charge\">");
  }
}
