package dev.baton.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.JobArgs;
import dev.baton.testing.Fixture;
import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The dashboard in a real headless Chromium (Debian's chromium and chromedriver; Selenium Manager
 * is never asked, so nothing is downloaded), one browser session for the class: an operator finds a
 * discarded job from the overview and retries it; finds a dead worker's queue flagged, a failure
 * from the grouped view to its job and root cause, a job by its args, cancels selected jobs and
 * sees who paused a queue; pauses a queue and its worker stops claiming; sets and removes a queue's
 * backlog cap (a typo gets its message) and a queue's rate limit; retries a unique job whose key
 * another job holds and is told which; every page fits 420 px; args render as text; a form without
 * its CSRF token is refused; with auth on, the browser gets 401. Saves the screenshots that the
 * docs show under target/screenshots; {@code baton-dashboard/screenshots.sh} runs this test and
 * copies them to docs/images.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DashboardBrowserIT {
  private static final String CHROMIUM = "/usr/bin/chromium";
  private static final String CHROMEDRIVER = "/usr/bin/chromedriver";
  private static final Duration WAIT = Duration.ofSeconds(20);
  // Relative to the module, where Maven runs the test; the build's output only, never the sources.
  private static final Path SCREENSHOTS = Path.of("target", "screenshots");

  record Work(int n) implements JobArgs {}

  private static Fixture f;
  private static DashboardServer server;
  private static WebDriver browser;
  private static Path profile;
  private static final AtomicInteger worked = new AtomicInteger();

  @BeforeAll
  static void start() throws IOException {
    for (String exe : new String[] {CHROMIUM, CHROMEDRIVER}) {
      if (!new File(exe).canExecute()) {
        String missing =
            exe + " is missing; install it with: apt-get install -y chromium chromium-driver";
        // CI installs both (.ci/run), so there a missing browser is a failure; a developer's
        // machine without them skips the browser test and says why.
        if ("true".equals(System.getenv("CI"))) {
          throw new AssertionError(missing);
        }
        org.junit.jupiter.api.Assumptions.abort(missing);
      }
    }
    f = new Fixture();
    f.start(
        f.config().queue("work", 2).build(),
        b -> b.handler(Work.class, (ctx, args) -> worked.incrementAndGet()));
    seedHistory();
    server =
        Dashboard.builder(f.reader(), f.dataSource())
            .build()
            .serve(new InetSocketAddress("127.0.0.1", 0));

    profile = Files.createTempDirectory("baton-chromium-");
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM);
    options.addArguments(
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--window-size=1360,900",
        "--user-data-dir=" + profile);
    // The driver is named, so Selenium Manager is not run to find (or download) one.
    ChromeDriverService service =
        new ChromeDriverService.Builder().usingDriverExecutable(new File(CHROMEDRIVER)).build();
    browser = new ChromeDriver(service, options);
    browser.manage().timeouts().pageLoadTimeout(WAIT);
  }

  @AfterAll
  static void stop() throws IOException {
    if (browser != null) {
      browser.quit();
    }
    if (server != null) {
      server.close();
    }
    if (f != null) {
      f.close();
    }
    if (profile != null) {
      try (var paths = Files.walk(profile)) {
        paths.sorted(java.util.Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
      }
    }
  }

  // An hour of history for the overview: completions over the last hour and a few failures.
  private static void seedHistory() {
    f.execute(
        "INSERT INTO %s.job (queue, kind, state, attempt, attempted_at, finalized_at)"
            + " SELECT q, 'send_email', 'completed', 1, t, t FROM ("
            + "   SELECT CASE WHEN g % 3 = 0 THEN 'reports' ELSE 'mail' END AS q,"
            + "          now() - (g * 11 % 3600) * interval '1 second' AS t"
            + "   FROM generate_series(1, 900) g) x");
    for (int i = 0; i < 3; i++) {
      Seed.discarded(
          f, "mail", "{\"to\": \"user" + i + "@example.com\", \"template\": \"welcome\"}");
    }
    Seed.scheduled(f, "reports");
    Seed.available(f, "reports");
  }

  private String url(String path) {
    return server.uri().resolve(path).toString();
  }

  private WebDriverWait waiting() {
    WebDriverWait w = new WebDriverWait(browser, WAIT);
    w.ignoring(StaleElementReferenceException.class);
    return w;
  }

  private static void screenshot(String name) throws IOException {
    Path target = SCREENSHOTS.resolve(name);
    Files.createDirectories(SCREENSHOTS);
    File shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
    Files.copy(shot.toPath(), target, StandardCopyOption.REPLACE_EXISTING);
  }

  // First only so that the overview's screenshot shows the seeded queues alone.
  @Test
  @Order(1)
  void anOperatorFindsADiscardedJobFromTheOverviewAndRetriesIt() throws IOException {
    long id = Seed.discarded(f, "mail", Seed.SCRIPT_ARGS);
    browser.get(url("/"));
    waiting().until(d -> d.findElement(By.cssSelector("tr[data-queue='mail']")).isDisplayed());
    String discarded =
        browser
            .findElement(By.cssSelector("tr[data-queue='mail'] td[data-state='discarded']"))
            .getText();
    assertThat(discarded)
        .isEqualTo(
            ""
                + f.count(
                    "SELECT count(*) FROM %s.job WHERE queue = 'mail' AND state = 'discarded'"));
    screenshot("dashboard-overview.png");

    browser.findElement(By.linkText("Jobs")).click();
    new Select(browser.findElement(By.name("state"))).selectByVisibleText("discarded");
    browser.findElement(By.cssSelector("form.filter button")).click();
    waiting().until(d -> d.getCurrentUrl().contains("state=discarded"));
    assertThat(browser.findElements(By.cssSelector("table.jobs td.state")))
        .hasSize((int) f.count("SELECT count(*) FROM %s.job WHERE state = 'discarded'"))
        .allSatisfy(td -> assertThat(td.getText()).isEqualTo("discarded"));

    browser.findElement(By.cssSelector("tr[data-id='" + id + "'] a")).click();
    waiting().until(d -> d.findElement(By.tagName("h1")).getText().equals("Job " + id));
    // The args are shown as the text they are; the script in them never ran.
    assertThat(browser.findElement(By.id("args")).getText())
        .contains("\"note\" : \"<script>window.pwned = 1</script>\\\" onmouseover=\\\"x\"");
    assertThat(((JavascriptExecutor) browser).executeScript("return window.pwned === undefined"))
        .isEqualTo(true);
    assertThat(browser.findElement(By.cssSelector("table.attempts")).getText())
        .contains("java.io.IOException", "smtp <b>down</b>");
    screenshot("dashboard-job.png");

    browser.findElement(By.xpath("//button[.='Retry']")).click();
    waiting().until(d -> d.findElement(By.cssSelector("p.message")).getText().contains("retried"));
    assertThat(Seed.state(f, id)).isEqualTo("available");
  }

  // After the first test, whose list counts every discarded job; its screenshots are replaced.
  @Test
  @Order(2)
  void anOperatorFindsTheDeadWorkersQueueTriagesAFailureSearchesCancelsAndPauses()
      throws IOException {
    // A worker that died ten minutes ago, the only one working "billing", which has jobs waiting.
    f.execute(
        "INSERT INTO %s.node (id, host, pid, queues, version, started_at, heartbeat_at) VALUES"
            + " ('billing-worker-1', 'host-b', 4242, '{billing}', 'v', now() - interval '1 hour',"
            + " now() - interval '10 minutes')");
    long waitingA = f.count(billing("available", "{\"customer_id\": 42, \"amount\": 1999}"));
    long waitingB = f.count(billing("available", "{\"customer_id\": 7, \"amount\": 500}"));
    f.count(billing("available", "{\"customer_id\": 9, \"amount\": 120}"));
    long failed = 0;
    for (int i = 0; i < 3; i++) {
      failed =
          f.count(
              "INSERT INTO %s.job (queue, kind, args, state, attempt, max_attempts, finalized_at,"
                  + " attempted_at, attempted_by, fence, errors) VALUES ('billing', 'charge_card',"
                  + " '{\"customer_id\": "
                  + (100 + i)
                  + "}', 'discarded', 3, 3, now(), now(), 'billing-worker-1', 9,"
                  + " jsonb_build_array(jsonb_build_object('attempt', 3, 'at', now(), 'error',"
                  + " 'java.lang.IllegalStateException', 'message', 'charge failed for customer "
                  + (100 + i)
                  + "', 'trace', 'java.lang.IllegalStateException: charge failed' || chr(10)"
                  + " || '\tat Billing.charge(Billing.java:31)' || chr(10) || 'Caused by:"
                  + " java.net.ConnectException: Connection refused (payments.internal:443)'"
                  + " || chr(10) || '\tat Net.connect(Net.java:7)'))) RETURNING id");
    }

    long lastFailed = failed;
    // The overview flags the queue no live node works.
    browser.get(url("/"));
    waiting()
        .until(d -> d.findElement(By.cssSelector("tr[data-queue='billing'].flag")).isDisplayed());
    assertThat(browser.findElement(By.id("unworked")).getText()).contains("no live node");
    assertThat(browser.findElement(By.cssSelector("tr[data-queue='billing']")).getText())
        .contains("none live");
    assertThat(browser.findElement(By.id("cluster")).getText()).contains("1 stale");
    screenshot("dashboard-overview.png");

    // The failures view groups them; its last job shows the root cause.
    browser.findElement(By.linkText("Failures")).click();
    waiting().until(d -> d.findElement(By.tagName("h1")).getText().equals("Failures"));
    assertThat(browser.findElement(By.cssSelector("table.failures")).getText())
        .contains("charge_card", "java.lang.IllegalStateException", "java.net.ConnectException");
    screenshot("dashboard-failures.png");
    browser.findElement(By.cssSelector("a.last-job[href$='/jobs/" + lastFailed + "']")).click();
    waiting().until(d -> d.findElement(By.tagName("h1")).getText().equals("Job " + lastFailed));
    assertThat(browser.findElement(By.id("last-error")).getText())
        .contains("charge failed", "caused by java.net.ConnectException: Connection refused");
    assertThat(browser.findElement(By.cssSelector("table.attempts .root-cause")).getText())
        .contains("caused by java.net.ConnectException: Connection refused");
    screenshot("dashboard-job.png");

    // A search by args finds the one customer's job.
    browser.get(url("/jobs?queue=billing&state=available"));
    browser.findElement(By.name("args")).sendKeys("{\"customer_id\": 42}");
    browser.findElement(By.cssSelector("form.filter button")).click();
    waiting().until(d -> d.getCurrentUrl().contains("args="));
    assertThat(browser.findElements(By.cssSelector("table.jobs tbody tr")))
        .singleElement()
        .satisfies(tr -> assertThat(tr.getAttribute("data-id")).isEqualTo("" + waitingA));

    // Two jobs selected on the page are cancelled in one go.
    browser.get(url("/jobs?queue=billing&state=available"));
    browser.findElement(By.cssSelector("input[name=ids][value='" + waitingA + "']")).click();
    browser.findElement(By.cssSelector("input[name=ids][value='" + waitingB + "']")).click();
    browser.findElement(By.cssSelector("#selection button[value=cancel]")).click();
    browser.switchTo().alert().accept();
    waiting()
        .until(
            d -> d.findElement(By.cssSelector("p.message")).getText().contains("2 jobs cancelled"));
    assertThat(Seed.state(f, waitingA)).isEqualTo("cancelled");
    assertThat(Seed.state(f, waitingB)).isEqualTo("cancelled");

    // Pausing the queue shows who paused it, and when.
    browser.get(url("/"));
    clickInRow("billing", "Pause");
    waiting()
        .until(
            d ->
                d.findElement(By.cssSelector("tr[data-queue='billing'] td.paused"))
                    .getText()
                    .contains("by " + f.reader().nodeId()));
    clickInRow("billing", "Resume");
  }

  private static String billing(String state, String args) {
    return "INSERT INTO %s.job (queue, kind, args, state) VALUES ('billing', 'charge_card', '"
        + args
        + "', '"
        + state
        + "') RETURNING id";
  }

  @Test
  void pausingAQueueFromTheOverviewStopsItsWorkerClaiming() {
    browser.get(url("/"));
    clickInRow("work", "Pause");
    waiting()
        .until(d -> !d.findElements(By.cssSelector("tr[data-queue='work'] td.paused")).isEmpty());
    int before = worked.get();
    String insert =
        "INSERT INTO %s.job (queue, kind, args) VALUES ('work', 'work', '{\"n\": 1}') RETURNING id";
    long a = f.count(insert);
    long b = f.count(insert);
    await()
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                worked.get() == before
                    && Seed.state(f, a).equals("available")
                    && Seed.state(f, b).equals("available"));

    clickInRow("work", "Resume");
    await().atMost(WAIT).until(() -> worked.get() == before + 2);
  }

  // The overview's table is swapped every 2 s, so the button is looked up again when stale.
  private void clickInRow(String queue, String button) {
    waiting()
        .until(
            d -> {
              d.findElement(
                      By.xpath("//tr[@data-queue='" + queue + "']//button[.='" + button + "']"))
                  .click();
              return true;
            });
    waiting().until(d -> d.findElement(By.cssSelector("p.message")).getText().contains(queue));
  }

  /** Types {@code cap} into the cap field of {@code queue}'s row on the overview and sets it. */
  private void setCap(String queue, String cap) {
    browser.get(url("/"));
    waiting()
        .until(
            d -> {
              org.openqa.selenium.WebElement field =
                  d.findElement(By.cssSelector("tr[data-queue='" + queue + "'] input[name=cap]"));
              field.clear();
              field.sendKeys(cap);
              d.findElement(By.xpath("//tr[@data-queue='" + queue + "']//button[.='Set cap']"))
                  .click();
              return true;
            });
  }

  @Test
  void anOperatorSetsAndRemovesAQueuesBacklogCapAndATypoGetsItsMessage() {
    Seed.available(f, "capped");
    Seed.available(f, "capped");
    setCap("capped", "lots");
    waiting()
        .until(
            d ->
                d.findElement(By.id("error"))
                    .getText()
                    .contains("expected a whole number 1..100000000, got \"lots\""));

    setCap("capped", "2");
    waiting().until(d -> d.findElement(By.cssSelector("p.message")).getText().contains("set to 2"));
    org.openqa.selenium.WebElement cell =
        browser.findElement(By.cssSelector("tr[data-queue='capped'] td[data-cap='2']"));
    assertThat(cell.getText()).isEqualTo("2 / 2");
    assertThat(cell.getAttribute("class")).contains("bad");

    browser.findElement(By.xpath("//tr[@data-queue='capped']//button[.='Remove cap']")).click();
    browser.switchTo().alert().accept();
    waiting()
        .until(d -> d.findElement(By.cssSelector("p.message")).getText().contains("cap removed"));
    assertThat(
            f.db()
                .queryString(
                    "SELECT count(*)::text FROM "
                        + f.schema()
                        + ".queue WHERE name = 'capped' AND backlog_cap IS NOT NULL"))
        .isEqualTo("0");
  }

  /** Opens {@code queue}'s limits forms on the overview, fills the rate form and submits it. */
  private void setRate(String queue, String rate, String period) {
    browser.get(url("/"));
    waiting()
        .until(
            d -> {
              String row = "tr[data-queue='" + queue + "'] ";
              d.findElement(By.cssSelector(row + "details.limits summary")).click();
              org.openqa.selenium.WebElement n =
                  d.findElement(By.cssSelector(row + "input[name=rate]"));
              n.clear();
              n.sendKeys(rate);
              org.openqa.selenium.WebElement p =
                  d.findElement(By.cssSelector(row + "input[name=period]"));
              p.clear();
              p.sendKeys(period);
              d.findElement(By.xpath("//tr[@data-queue='" + queue + "']//button[.='Set rate']"))
                  .click();
              return true;
            });
  }

  @Test
  void anOperatorSetsAQueuesRateLimitSeenWithItsUseAndATypoGetsItsMessage() {
    Seed.available(f, "rated");
    setRate("rated", "5", "soon");
    waiting()
        .until(
            d ->
                d.findElement(By.id("error"))
                    .getText()
                    .contains("invalid rate period for queue rated: expected a whole number with"));
    setRate("rated", "5", "1m");
    waiting()
        .until(d -> d.findElement(By.cssSelector("p.message")).getText().contains("5 starts per"));
    org.openqa.selenium.WebElement cell =
        browser.findElement(By.cssSelector("tr[data-queue='rated'] div[data-limit='rate']"));
    assertThat(cell.getText()).isEqualTo("0 / 5 starts per 1m");
    assertThat(
            f.db()
                .queryString(
                    "SELECT rate_limit || '/' || rate_period_ms FROM "
                        + f.schema()
                        + ".queue WHERE name = 'rated'"))
        .isEqualTo("5/60000");
  }

  @Test
  void aRetryOfAUniqueJobWhoseKeyAnotherJobHoldsSaysWhichAndChangesNothing() {
    dev.baton.admin.BatonAdmin admin = new dev.baton.admin.BatonAdmin(f.dataSource(), f.schema());
    dev.baton.EnqueueOptions unique =
        dev.baton.EnqueueOptions.builder()
            .queue("unique")
            .unique(dev.baton.UniqueOptions.byArgs().build())
            .build();
    com.fasterxml.jackson.databind.JsonNode args =
        new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode().put("customer", 7);
    long first = admin.enqueue("sync", args, unique).job().id();
    f.execute("UPDATE %s.job SET state = 'completed', finalized_at = now() WHERE id = " + first);
    long second = admin.enqueue("sync", args, unique).job().id();

    browser.get(url("/jobs/" + first));
    assertThat(browser.findElement(By.id("unique")).getText())
        .contains("yes, holds its key while scheduled", "job " + second + " holds the key now");
    browser.findElement(By.xpath("//button[.='Retry']")).click();
    waiting()
        .until(
            d ->
                d.findElement(By.id("error"))
                    .getText()
                    .contains("another job holds its unique key"));
    assertThat(browser.findElement(By.id("error")).getText()).contains("job " + second);
    assertThat(Seed.state(f, first)).isEqualTo("completed");
  }

  @Test
  void everyPageFitsA420PixelScreenAndALongStackTraceLineWraps() {
    long id =
        f.count(
            "INSERT INTO %s.job (queue, kind, state, attempt, finalized_at, errors) VALUES"
                + " ('narrow', 'k', 'discarded', 1, now(), jsonb_build_array(jsonb_build_object("
                + "'attempt', 1, 'at', now(), 'error', 'java.lang.IllegalStateException',"
                + " 'message', repeat('m', 300), 'trace', 'java.lang.IllegalStateException: '"
                + " || repeat('x', 2000) || chr(10) || 'Caused by: java.io.IOException: '"
                + " || repeat('y', 500)))) RETURNING id");
    org.openqa.selenium.Dimension wide = browser.manage().window().getSize();
    try {
      browser.manage().window().setSize(new org.openqa.selenium.Dimension(420, 900));
      for (String path :
          new String[] {
            "/",
            "/jobs?state=discarded",
            "/jobs/" + id,
            "/failures",
            "/times",
            "/nodes",
            "/periodic"
          }) {
        browser.get(url(path));
        waiting().until(d -> d.findElement(By.tagName("h1")).isDisplayed());
        ((JavascriptExecutor) browser)
            .executeScript("document.querySelectorAll('details').forEach(e => e.open = true)");
        Object overflow =
            ((JavascriptExecutor) browser)
                .executeScript(
                    "return document.documentElement.scrollWidth - document.documentElement.clientWidth");
        assertThat(((Number) overflow).longValue()).as(path).isLessThanOrEqualTo(0);
      }
    } finally {
      browser.manage().window().setSize(wide);
    }
  }

  @Test
  void aJobsPageWithLiveTickedShowsItsNewStateWithoutAReload() {
    long id = Seed.scheduled(f, "live");
    browser.get(url("/jobs/" + id));
    waiting().until(d -> d.findElement(By.id("live")).isDisplayed());
    ((JavascriptExecutor) browser).executeScript("window.notReloaded = true");
    browser.findElement(By.id("live")).click();
    f.execute("UPDATE %s.job SET state = 'cancelled', finalized_at = now() WHERE id = " + id);
    waiting()
        .until(
            d ->
                d.findElement(By.cssSelector("#live-part dl.fields dd"))
                    .getText()
                    .equals("cancelled"));
    // The part was swapped in; the page itself was not loaded again.
    assertThat(((JavascriptExecutor) browser).executeScript("return window.notReloaded === true"))
        .isEqualTo(true);
  }

  @Test
  void aFormWithoutItsCsrfTokenIsRefused() {
    long id = Seed.discarded(f, "forms", "{}");
    browser.get(url("/jobs/" + id));
    ((JavascriptExecutor) browser)
        .executeScript("document.querySelectorAll('input[name=csrf]').forEach(e => e.remove())");
    browser.findElement(By.xpath("//button[.='Retry']")).click();
    waiting().until(d -> d.findElement(By.id("error")).getText().contains("CSRF token"));
    assertThat(Seed.state(f, id)).isEqualTo("discarded");
  }

  @Test
  void withAuthOnTheBrowserWithoutCredentialsGets401() {
    try (DashboardServer guarded =
        Dashboard.builder(f.reader(), f.dataSource())
            .auth(DashboardAuth.bearerToken("browser-test-token-0123456789"))
            .build()
            .serve(new InetSocketAddress("127.0.0.1", 0))) {
      browser.get(guarded.uri().resolve("/jobs").toString());
      assertThat(browser.findElement(By.tagName("h1")).getText())
          .isEqualTo("Authentication required");
      assertThat(browser.findElements(By.cssSelector("table.jobs"))).isEmpty();
    }
  }
}
