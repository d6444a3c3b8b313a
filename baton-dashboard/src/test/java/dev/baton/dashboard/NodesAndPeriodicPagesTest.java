package dev.baton.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testing.Fixture;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Nodes and Periodic pages and their API, over rows written as nodes and a leader write them:
 * each node with its host, pid, queues and version, the live leader marked and an expired lease
 * said so; each periodic schedule with its zone, last due time, a link to its last job and its next
 * due time; and what each page says on a cluster that has none.
 */
class NodesAndPeriodicPagesTest {
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
  void nodesPageListsEveryNodeAndMarksTheLiveLeader() throws Exception {
    node("node-a", "host-a", 4242, "{mail,reports}");
    node("node-b", "host-b", 77, "{}");
    f.execute(
        "INSERT INTO %s.leader (role, leader_id, term, elected_at, renewed_at, expires_at)"
            + " VALUES ('maintenance', 'node-a', 7, '2026-03-01T10:00:00Z', now(),"
            + " now() + interval '1 hour')");

    String page = web.get("/nodes").body();
    assertThat(page)
        .contains("<title>Nodes · Baton</title>")
        .contains("Leader: node-a (term 7, elected 2026-03-01 10:00:00.000Z, lease until ")
        .contains("<td>node-a <span class=\"badge\">leader</span></td><td>host-a</td><td>4242</td>")
        .contains("<td>mail, reports</td><td>9.9.9-test</td>")
        .contains("<td>node-b</td><td>host-b</td><td>77</td>");
    String api = web.get("/api/nodes").body();
    assertThat(api).contains("\"id\":\"node-a\"").contains("\"id\":\"node-b\"");
    assertThat(api).contains("\"leader\":{").contains("\"nodeId\":\"node-a\"");

    // A leader whose lease ran out is shown as such, and no node is marked as leading.
    f.execute("UPDATE %s.leader SET expires_at = now() - interval '1 minute'");
    String expired = web.get("/nodes").body();
    assertThat(expired).contains("Leader: node-a (term 7, elected ").contains(", lease expired ");
    assertThat(expired).doesNotContain("class=\"badge\">leader");
  }

  @Test
  void periodicPageShowsEachScheduleWithItsLastJobAndNextDueTime() throws Exception {
    long job = Seed.available(f, "reports");
    f.execute(
        "INSERT INTO %s.periodic (name, schedule, last_due_at, last_job_id, updated_at) VALUES"
            + " ('nightly', '0 3 * * *', '2026-03-01T03:00:00Z', "
            + job
            + ", now()),"
            + " ('feb-30', '0 0 30 2 *', '2026-03-01T00:00:00Z', NULL, now()),"
            + " ('<b>odd</b>', '*/10 * * * * *', '2026-03-01T12:00:05Z', NULL, now())");

    String page = web.get("/periodic").body();
    assertThat(page)
        .contains("<title>Periodic jobs · Baton</title>")
        .contains(
            "<tr><td>nightly</td><td><code>0 3 * * *</code> Z</td>"
                + "<td>2026-03-01 03:00:00.000Z</td>"
                + "<td><a href=\"/jobs/"
                + job
                + "\">"
                + job
                + "</a></td><td>2026-03-02 03:00:00.000Z</td></tr>")
        // A schedule with no due time at all, and one that has not enqueued a job yet.
        .contains("<tr><td>feb-30</td><td><code>0 0 30 2 *</code> Z</td>")
        .contains("<td>-</td><td>-</td></tr>")
        .contains("<tr><td>&lt;b&gt;odd&lt;/b&gt;</td>")
        .contains("<td>2026-03-01 12:00:10.000Z</td>")
        .doesNotContain("<b>odd</b>");
    String api = web.get("/api/periodic").body();
    assertThat(api)
        .contains("\"name\":\"nightly\"")
        .contains("\"lastJobId\":" + job)
        .contains("\"nextDueAt\":\"2026-03-02T03:00:00Z\"");
  }

  @Test
  void aClusterWithNoneSaysSoOnEachPage() throws Exception {
    try (Fixture empty = new Fixture();
        DashboardServer s =
            Dashboard.builder(empty.reader(), empty.dataSource())
                .build()
                .serve(new InetSocketAddress("127.0.0.1", 0))) {
      WebClient w = new WebClient(s.uri());
      assertThat(w.get("/nodes").body())
          .contains("No leader was ever elected.")
          .contains("No node is registered.");
      assertThat(w.get("/periodic").body())
          .contains("No periodic job has been registered with a leader.");
      assertThat(w.get("/api/periodic").body()).isEqualTo("[]");
    }
  }

  private static void node(String id, String host, long pid, String queues) {
    f.execute(
        "INSERT INTO %s.node (id, host, pid, queues, version, started_at, heartbeat_at) VALUES ('"
            + id
            + "', '"
            + host
            + "', "
            + pid
            + ", '"
            + queues
            + "', '9.9.9-test', now() - interval '1 hour', now() - interval '5 seconds')");
  }
}
