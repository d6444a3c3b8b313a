package dev.baton.dashboard.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.admin.JobBrowser;
import dev.baton.dashboard.Dashboard;
import dev.baton.dashboard.DashboardServer;
import dev.baton.migrate.Migrator;
import dev.baton.testing.PlanRecorder;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How fast the dashboard's job list and detail answer on a large table: fills a fresh schema with a
 * mix of states (1,000,000 jobs by default), serves the dashboard in this process, asks each page
 * 30 times after 5 warm-up requests, and prints the server time of each (its {@code Server-Timing}
 * header: routing, the statement, rendering) as median, 95th percentile and maximum, then the plan
 * PostgreSQL made for each page's statement with its binds. A benchmark: it prints figures and
 * never fails on a time.
 *
 * <p>Run: {@code bash baton-dashboard/bench/speed.sh [JDBC_URL] [JOBS] [reuse]}. With {@code reuse}
 * the schema filled by an earlier run is kept (filling takes minutes) and only migrated to the
 * current version; it must have been filled with the same JOBS.
 */
public final class DashboardSpeed {
  private static final int WARM = 5;
  private static final int RUNS = 30;

  private DashboardSpeed() {}

  public static void main(String[] args) throws Exception {
    String url = args.length > 0 ? args[0] : System.getenv("BATON_TEST_DATABASE_URL");
    int jobs = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
    boolean reuse = args.length > 2 && args[2].equals("reuse");
    String schema = "dashboard_speed";
    HikariConfig cfg = new HikariConfig();
    cfg.setJdbcUrl(url);
    cfg.setMaximumPoolSize(4);
    try (HikariDataSource pool = new HikariDataSource(cfg)) {
      if (reuse) {
        new Migrator(pool, schema).up();
        System.out.printf(Locale.ROOT, "reused the schema %s, filled earlier%n", schema);
      } else {
        fill(pool, schema, jobs);
      }
      PlanRecorder plans = new PlanRecorder(pool);
      Baton baton =
          Baton.builder(pool)
              .config(BatonConfig.builder().schema(schema).allowUnknownKinds(true).build())
              .build();
      try (DashboardServer server =
          Dashboard.builder(baton, plans.dataSource())
              .build()
              .serve(new InetSocketAddress("127.0.0.1", 0))) {
        run(server.uri(), plans, jobs);
      }
    }
  }

  private static void fill(HikariDataSource pool, String schema, int jobs) throws Exception {
    long t0 = System.nanoTime();
    try (Connection c = pool.getConnection();
        Statement st = c.createStatement()) {
      st.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
      new Migrator(pool, schema).up();
      // States by share of the table: most history is completed, as in a queue that keeps a day
      // of it; ten queues and twenty kinds; one queue ('rare') of 100 old jobs.
      st.execute(
          ("INSERT INTO %s.job (queue, kind, args, state, priority, attempt, scheduled_at,"
                  + " attempted_at, attempted_by, lease_expires_at, fence, idempotency_key,"
                  + " errors, finalized_at, created_at)"
                  + " SELECT CASE WHEN g <= 100 THEN 'rare' ELSE 'q' || (g % 10) END,"
                  + "   'k' || (g % 20), jsonb_build_object('n', g, 'to', 'user' || g ||"
                  + "   '@example.com'), s, g % 3, CASE WHEN s IN ('available', 'scheduled')"
                  + "   THEN 0 ELSE 1 END, CASE WHEN s = 'scheduled' THEN now() + (g % 3600) *"
                  + "   interval '1 second' ELSE now() - (g % 600) * interval '1 second' END,"
                  + "   CASE WHEN s IN ('available', 'scheduled') THEN NULL ELSE t END,"
                  + "   CASE WHEN s IN ('available', 'scheduled') THEN NULL ELSE 'node-1' END,"
                  + "   CASE WHEN s = 'running' THEN now() + interval '5 minutes' END, g,"
                  + "   'key-' || g, CASE WHEN s IN ('discarded', 'retryable') THEN"
                  + "   jsonb_build_array(jsonb_build_object('attempt', 1, 'at', t, 'error',"
                  + "   'java.io.IOException', 'message', 'boom', 'trace', 'at X.y(X.java:1)'))"
                  + "   ELSE '[]'::jsonb END,"
                  + "   CASE WHEN s IN ('completed', 'discarded', 'cancelled') THEN t END, t"
                  + " FROM (SELECT g, now() - (JOBS - g) * interval '86 milliseconds' AS t,"
                  + "   CASE WHEN g % 100 < 90 THEN 'completed' WHEN g % 100 < 94 THEN"
                  + "   'discarded' WHEN g % 100 = 94 THEN 'cancelled' WHEN g % 100 < 98 THEN"
                  + "   'available' WHEN g % 1000 < 985 THEN 'scheduled' WHEN g % 1000 < 999"
                  + "   THEN 'retryable' ELSE 'running' END AS s"
                  + "   FROM generate_series(1, JOBS) g) x")
              .replace("%s", schema)
              .replace("JOBS", Integer.toString(jobs)));
      st.execute("VACUUM ANALYZE " + schema + ".job");
    }
    System.out.printf(
        Locale.ROOT, "filled %,d jobs in %.1f s%n", jobs, (System.nanoTime() - t0) / 1e9);
  }

  private static void run(URI root, PlanRecorder plans, int jobs) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    long mid = jobs / 2 + 7; // a completed job
    Map<String, String> pages = new LinkedHashMap<>();
    pages.put("list, newest first", "/jobs");
    pages.put("list, discarded", "/jobs?state=discarded");
    pages.put("list, completed in queue q3", "/jobs?state=completed&queue=q3");
    pages.put("list, available (claim order)", "/jobs?state=available");
    pages.put("list, scheduled", "/jobs?state=scheduled");
    pages.put("list, retryable", "/jobs?state=retryable");
    pages.put("list, running", "/jobs?state=running");
    pages.put("list, queue q3", "/jobs?queue=q3");
    pages.put("list, kind k7", "/jobs?kind=k7");
    pages.put("list, discarded of kind k7 (none)", "/jobs?state=discarded&kind=k7");
    pages.put("list, completed of kind k7", "/jobs?state=completed&kind=k7");
    pages.put("list, kind of no job", "/jobs?kind=none");
    pages.put(
        "list, kind of no job, search older",
        "/jobs?kind=none&after=" + nextOf(http, root, "/api/jobs?kind=none"));
    pages.put("list, by idempotency key", "/jobs?key=key-" + mid);
    pages.put("list, by id", "/jobs?id=" + mid);
    pages.put(
        "list, " + JobBrowser.MAX_PAGE_SIZE + " per page (API)",
        "/api/jobs?state=completed&limit=" + JobBrowser.MAX_PAGE_SIZE);
    pages.put(
        "list, discarded, page 201", "/jobs?state=discarded&after=" + cursorAfter(http, root));
    pages.put("list, queue 'rare' (100 oldest jobs)", "/jobs?queue=rare");
    pages.put("list, completed in queue 'rare'", "/jobs?state=completed&queue=rare");
    pages.put("list, scheduled in queue q3 (none)", "/jobs?state=scheduled&queue=q3");
    pages.put("detail", "/jobs/" + mid);
    pages.put("detail (API)", "/api/jobs/" + mid);
    pages.put("overview (not a target)", "/");
    pages.put("failures, last hour", "/failures");
    pages.put("times (wait and run percentiles)", "/times");
    pages.put("history, 7 days", "/history?range=7d");
    System.out.printf("%-40s %9s %9s %9s%n", "page", "median ms", "p95 ms", "max ms");
    Map<String, PlanRecorder.Plan> planOf = new LinkedHashMap<>();
    for (Map.Entry<String, String> p : pages.entrySet()) {
      List<Double> ms = new ArrayList<>();
      for (int i = 0; i < WARM + RUNS; i++) {
        plans.clear();
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(root.resolve(p.getValue())).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
          throw new IllegalStateException(p.getValue() + ": " + r.statusCode() + " " + r.body());
        }
        if (i >= WARM) {
          String t = r.headers().firstValue("Server-Timing").orElseThrow();
          ms.add(Double.parseDouble(t.substring(t.indexOf("dur=") + 4)));
        }
        if (i == 0 && !plans.plans().isEmpty()) {
          planOf.put(p.getKey(), plans.plans().get(0));
        }
      }
      Collections.sort(ms);
      System.out.printf(
          Locale.ROOT,
          "%-40s %9.1f %9.1f %9.1f%n",
          p.getKey(),
          ms.get(ms.size() / 2),
          ms.get((int) Math.ceil(ms.size() * 0.95) - 1),
          ms.get(ms.size() - 1));
    }
    System.out.println();
    System.out.println("Server time includes planning each request's statement (EXPLAIN runs on");
    System.out.println("the first request of each page only). Plans, with the binds of the page:");
    for (Map.Entry<String, PlanRecorder.Plan> e : planOf.entrySet()) {
      System.out.println();
      System.out.println("== " + e.getKey());
      System.out.println(e.getValue().plan());
    }
  }

  // The next cursor of one page of the API, or an empty string when it has none.
  private static String nextOf(HttpClient http, URI root, String q) throws Exception {
    String body =
        http.send(
                HttpRequest.newBuilder(root.resolve(q)).build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    return body.contains("\"next\":\"")
        ? body.replaceAll("(?s).*\"next\":\"([^\"]+)\".*", "$1")
        : "";
  }

  // The cursor of page 201 of the discarded jobs (50 a page), followed from the first page.
  private static String cursorAfter(HttpClient http, URI root) throws Exception {
    String next = null;
    for (int i = 0; i < 200; i++) {
      String q = "/api/jobs?state=discarded" + (next == null ? "" : "&after=" + next);
      String body =
          http.send(
                  HttpRequest.newBuilder(root.resolve(q)).build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      next = body.replaceAll("(?s).*\"next\":\"([^\"]+)\".*", "$1");
    }
    return next;
  }
}
