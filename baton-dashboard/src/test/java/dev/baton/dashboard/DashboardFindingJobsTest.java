package dev.baton.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testing.Fixture;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Finding jobs on a schema of its own: by JSON that their args or metadata contain, bad JSON a 400
 * naming what was expected; state tabs with their counts, capped; the queue picker from the nodes'
 * queues.
 */
class DashboardFindingJobsTest {
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
  void jobsAreFoundByJsonTheirArgsOrMetadataContain() throws Exception {
    long match =
        Seed.discarded(f, "search", "{\"customer\": {\"id\": 42}, \"template\": \"welcome\"}");
    long other = Seed.discarded(f, "search", "{\"customer\": {\"id\": 43}}");
    String q = Html.url("{\"customer\": {\"id\": 42}}");

    String page = web.get("/jobs?args=" + q).body();
    assertThat(page).contains("data-id=\"" + match + "\"").doesNotContain("data-id=\"" + other);
    String api = web.get("/api/jobs?state=discarded&args=" + q).body();
    assertThat(api).contains("\"id\":" + match).doesNotContain("\"id\":" + other);
    // The filter stays in the form, the tabs and the bulk links.
    assertThat(page).contains("value=\"{&quot;customer&quot;:{&quot;id&quot;:42}}\"");
    assertThat(web.get("/jobs?state=discarded&args=" + q).body())
        .contains("/jobs/bulk?action=retry&amp;state=discarded&amp;args=");

    // A parameter no list takes is refused, not ignored.
    HttpResponse<String> unknown = web.get("/jobs?q=welcome");
    assertThat(unknown.statusCode()).isEqualTo(400);
    assertThat(unknown.body())
        .contains("unknown parameter &quot;q&quot;", "args (JSON the args contain)");

    HttpResponse<String> bad = web.get("/jobs?args=" + Html.url("[1, 2]"));
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(bad.body()).contains("invalid parameter args: expected a JSON object");
    assertThat(web.get("/api/jobs?metadata=" + Html.url("{nope")).statusCode()).isEqualTo(400);
  }

  @Test
  void stateTabsCountTheirJobsUpToTheCapAndTheQueuePickerOffersTheNodesQueues() throws Exception {
    f.execute(
        "INSERT INTO %s.job (queue, kind, state, scheduled_at) SELECT 'tabs', 'k', 'scheduled',"
            + " now() + interval '1 hour' FROM generate_series(1, "
            + (Views.TAB_COUNT_CAP + 5)
            + ")");
    f.execute(
        "INSERT INTO %s.node (id, host, pid, queues, version, started_at, heartbeat_at) VALUES"
            + " ('picker-node', 'h', 1, '{picked-queue}', 'v', now(), now())");
    long running = Seed.running(f, "tabs");

    String page = web.get("/jobs").body();

    assertThat(page).contains("data-count=\"scheduled\">1,000+</span>");
    assertThat(page).contains("data-count=\"running\">1</span>");
    assertThat(page).contains("<option value=\"picked-queue\">");
    // A kind is checked on every row of a state: no count rather than reading them all.
    assertThat(web.get("/jobs?kind=k").body()).doesNotContain("data-count=\"scheduled\"");
    assertThat(running).isPositive();
  }
}
