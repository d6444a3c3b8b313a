package dev.baton.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.Baton;
import dev.baton.DependencyFailure;
import dev.baton.EnqueueOptions;
import dev.baton.EnqueuedWorkflow;
import dev.baton.JobArgs;
import dev.baton.JobState;
import dev.baton.Workflow;
import dev.baton.testing.Fixture;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What issue 34 brought, on the dashboard over HTTP: a real diamond workflow (a -> b, a -> c, b + c
 * -> d, dependents held on a failure) run by a started client, so its steps end in different
 * states: a job's page lists the jobs it waits for and the jobs that wait for it (step name, linked
 * id, state, a failed one's last error), its output escaped, its durable steps and its progress;
 * the job's JSON carries the same under {@code workflow}; a waiting job is listed under the {@code
 * pending} state; a job of none of this shows nothing new.
 */
class DashboardWorkflowsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SCRIPT = "<script>window.pwned = 1</script>";
  private static final String ROWS = "r".repeat(100);

  record Fetch(String day) implements JobArgs {}

  record Book(String day) implements JobArgs {}

  record Count(String day) implements JobArgs {}

  record Report(String day) implements JobArgs {}

  private static Fixture f;
  private static Baton baton;
  private static DashboardServer server;
  private static WebClient web;
  private static EnqueuedWorkflow wf;

  @BeforeAll
  static void runADiamond() {
    f = new Fixture();
    baton =
        f.start(
            f.config().queue("default", 2).build(),
            b ->
                b.handler(
                        Fetch.class,
                        (ctx, a) -> {
                          ctx.step("download", String.class, () -> "file-1");
                          ctx.progress(0.5, "half <b>way</b>");
                          Map<String, String> out = new java.util.LinkedHashMap<>();
                          out.put("note", SCRIPT);
                          out.put("rows", ROWS);
                          ctx.recordOutput(out);
                        })
                    .handler(
                        Book.class,
                        (ctx, a) -> {
                          throw new IllegalStateException("ledger <i>closed</i>");
                        })
                    .handler(Count.class, (ctx, a) -> ctx.recordOutput(42))
                    .handler(Report.class, (ctx, a) -> {}));
    wf =
        baton.enqueueWorkflow(
            Workflow.builder()
                .onDependencyFailure(DependencyFailure.HOLD)
                .step("fetch", new Fetch("d1"))
                .step(
                    "book",
                    new Book("d1"),
                    EnqueueOptions.builder().maxAttempts(1).build(),
                    "fetch")
                .step("count", new Count("d1"), "fetch")
                .step("report", new Report("d1"), "book", "count")
                .build());
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                f.job(wf.id("book")).state() == JobState.DISCARDED
                    && f.job(wf.id("count")).state() == JobState.COMPLETED);
    server =
        Dashboard.builder(f.reader(), f.dataSource())
            .build()
            .serve(new InetSocketAddress("127.0.0.1", 0));
    web = new WebClient(server.uri());
  }

  @AfterAll
  static void close() {
    server.close();
    baton.close();
    f.close();
  }

  /** The {@code <li>} of job {@code id} in the list of the given element id on {@code page}. */
  private static String item(String page, String list, long id) {
    int start = page.indexOf("id=\"" + list + "\"");
    assertThat(start).as("list " + list).isPositive();
    String ol = page.substring(start, page.indexOf("</ol>", start));
    int li = ol.indexOf("<li data-id=\"" + id + "\"");
    assertThat(li).as("job " + id + " in " + list + " of " + ol).isNotNegative();
    return ol.substring(li, ol.indexOf("</li>", li));
  }

  @Test
  void aJoinStepListsWhatItWaitsForWithStatesAndTheFailedStepsError() throws Exception {
    String page = web.get("/jobs/" + wf.id("report")).body();
    assertThat(page).contains("<dd>pending</dd>");
    String book = item(page, "dependencies", wf.id("book"));
    assertThat(book)
        .contains(
            "<span class=\"step-name\">book</span>",
            "<a href=\"/jobs/" + wf.id("book") + "\">job " + wf.id("book") + "</a>",
            "<span class=\"state discarded\">discarded</span>",
            "<span class=\"error-class\">java.lang.IllegalStateException</span>",
            "ledger &lt;i&gt;closed&lt;/i&gt;");
    String count = item(page, "dependencies", wf.id("count"));
    assertThat(count)
        .contains(
            "<span class=\"step-name\">count</span>",
            "<span class=\"state completed\">completed</span>",
            "<code class=\"output\">42</code>")
        .doesNotContain("error-class");
    assertThat(page.indexOf("data-id=\"" + wf.id("book") + "\""))
        .as("the steps in their order")
        .isLessThan(page.indexOf("data-id=\"" + wf.id("count") + "\""));
    assertThat(page).doesNotContain("id=\"dependents\"", "id=\"output\"", "id=\"steps\"");
  }

  @Test
  void theFirstStepShowsItsDependentsOutputStepsAndProgressEscaped() throws Exception {
    String page = web.get("/jobs/" + wf.id("fetch")).body();
    assertThat(item(page, "dependents", wf.id("book")))
        .contains("<span class=\"state discarded\">discarded</span>", "if this job fails: hold");
    assertThat(item(page, "dependents", wf.id("count")))
        .contains("<span class=\"state completed\">completed</span>");
    assertThat(page).doesNotContain("id=\"dependencies\"");
    // The output holds a script element: shown as text, never as markup.
    assertThat(page)
        .doesNotContain(SCRIPT)
        .contains("<pre id=\"output\" class=\"json\">{&quot;note&quot;:&quot;&lt;script&gt;");
    // Cut like an args preview: its first 80 characters.
    assertThat(page).doesNotContain(ROWS).contains("&quot;rows&quot;:&quot;rrr", "r...</pre>");
    int steps = page.indexOf("id=\"steps\"");
    assertThat(steps).isPositive();
    assertThat(page.substring(steps, page.indexOf("</table>", steps)))
        .contains("<td>download</td><td>1</td>", "&quot;file-1&quot;");
    assertThat(page)
        .contains("<progress max=\"1\" value=\"0.5\">", "50%")
        .contains("<span class=\"progress-message\">half &lt;b&gt;way&lt;/b&gt;</span>");
  }

  @Test
  void theJobsJsonCarriesItsWorkflow() throws Exception {
    JsonNode fetch = JSON.readTree(web.get("/api/jobs/" + wf.id("fetch")).body());
    JsonNode w = fetch.path("workflow");
    assertThat(w.path("output").path("note").asText()).isEqualTo(SCRIPT);
    assertThat(w.path("output").path("rows").asText()).isEqualTo(ROWS);
    assertThat(w.path("dependents")).hasSize(2);
    assertThat(w.path("dependents").findValuesAsText("state"))
        .containsExactlyInAnyOrder("discarded", "completed");
    assertThat(w.path("steps").get(0).path("name").asText()).isEqualTo("download");
    assertThat(w.path("progress").path("fraction").asDouble()).isEqualTo(0.5);
    assertThat(w.path("progress").path("message").asText()).isEqualTo("half <b>way</b>");

    JsonNode report = JSON.readTree(web.get("/api/jobs/" + wf.id("report")).body());
    assertThat(report.path("state").asText()).isEqualTo("pending");
    JsonNode deps = report.path("workflow").path("dependencies");
    assertThat(deps.findValuesAsText("name")).containsExactly("book", "count");
    assertThat(deps.findValuesAsText("state")).containsExactly("discarded", "completed");
    assertThat(deps.get(1).path("output").asInt()).isEqualTo(42);
  }

  @Test
  void aWaitingJobIsListedUnderThePendingState() throws Exception {
    String tabs = web.get("/jobs").body();
    // a tab, without a count: no index lists pending jobs, so counting them would read the table
    assertThat(tabs)
        .contains("<option>pending</option>")
        .contains("state=pending&amp;limit=50\">pending</a>");
    String pending = web.get("/jobs?state=pending").body();
    assertThat(pending).contains("<tr data-id=\"" + wf.id("report") + "\">");
    assertThat(pending).doesNotContain("<tr data-id=\"" + wf.id("fetch") + "\">");
    assertThat(JSON.readTree(web.get("/api/jobs?state=pending").body()).path("jobs"))
        .extracting(j -> j.path("id").asLong())
        .containsExactly(wf.id("report"));
  }

  @Test
  void aJobOfNoneOfThisShowsNothingNew() throws Exception {
    long plain = Seed.available(f, "plain");
    String page = web.get("/jobs/" + plain).body();
    assertThat(page)
        .doesNotContain(
            "id=\"workflow\"",
            "id=\"dependencies\"",
            "id=\"dependents\"",
            "id=\"output\"",
            "id=\"steps\"",
            "id=\"progress\"");
    JsonNode w = JSON.readTree(web.get("/api/jobs/" + plain).body()).path("workflow");
    assertThat(w.path("dependencies")).isEmpty();
    assertThat(w.path("dependents")).isEmpty();
    assertThat(w.path("steps")).isEmpty();
    assertThat(w.path("output").isNull()).isTrue();
    assertThat(w.path("progress").isNull()).isTrue();
  }
}
