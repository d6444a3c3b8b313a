package dev.baton.dashboard.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.admin.BatonAdmin;
import dev.baton.dashboard.Dashboard;
import dev.baton.dashboard.DashboardServer;
import dev.baton.migrate.Migrator;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How long the dashboard takes to retry and then delete 10,000 jobs matching a filter (its bulk
 * action on all matches, as the confirm page's button posts it): fills a fresh schema with 10,000
 * discarded jobs beside 100,000 completed ones, posts each action, and prints the server time of
 * the answer ({@code Server-Timing}) and the jobs it changed. Three rounds. A benchmark: it prints
 * figures and never fails on a time.
 *
 * <p>Run: {@code bash baton-dashboard/bench/bulk.sh [JDBC_URL]}.
 */
public final class BulkSpeed {
  private static final int JOBS = 10_000;
  private static final Pattern TIMING = Pattern.compile("app;dur=([0-9.]+)");

  private BulkSpeed() {}

  public static void main(String[] args) throws Exception {
    String url = args.length > 0 ? args[0] : System.getenv("BATON_TEST_DATABASE_URL");
    String schema = "dashboard_bulk";
    HikariConfig cfg = new HikariConfig();
    cfg.setJdbcUrl(url);
    cfg.setMaximumPoolSize(4);
    try (HikariDataSource pool = new HikariDataSource(cfg)) {
      try (Connection c = pool.getConnection();
          Statement s = c.createStatement()) {
        s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
      }
      new Migrator(pool, schema).up();
      try (Connection c = pool.getConnection();
          Statement s = c.createStatement()) {
        s.execute(
            "INSERT INTO "
                + schema
                + ".job (queue, kind, state, attempt, finalized_at) SELECT 'other', 'k',"
                + " 'completed', 1, now() FROM generate_series(1, 100000)");
      }
      try (DashboardServer server =
          Dashboard.builder(new BatonAdmin(pool, schema))
              .build()
              .serve(new InetSocketAddress("127.0.0.1", 0))) {
        HttpClient http = HttpClient.newHttpClient();
        String token = "bulk-speed-token-0123456789";
        for (int round = 1; round <= 3; round++) {
          try (Connection c = pool.getConnection();
              Statement s = c.createStatement()) {
            s.execute(
                "INSERT INTO "
                    + schema
                    + ".job (queue, kind, state, attempt, finalized_at) SELECT 'bulk', 'k',"
                    + " 'discarded', 1, now() FROM generate_series(1, "
                    + JOBS
                    + ")");
            s.execute("ANALYZE " + schema + ".job");
          }
          for (String action : new String[] {"retry", "delete"}) {
            String state = action.equals("retry") ? "discarded" : "available";
            HttpResponse<String> r =
                http.send(
                    HttpRequest.newBuilder(URI.create(server.uri() + "api/jobs/bulk"))
                        .header("Cookie", "baton_csrf=" + token)
                        .header("X-Baton-Csrf", token)
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .POST(
                            HttpRequest.BodyPublishers.ofString(
                                "action=" + action + "&state=" + state + "&queue=bulk"))
                        .build(),
                    HttpResponse.BodyHandlers.ofString());
            Matcher m =
                TIMING.matcher(r.headers().firstValue("Server-Timing").orElse("app;dur=-1"));
            m.find();
            System.out.printf(
                Locale.ROOT,
                "round %d: bulk %-6s of %,d %s jobs: %8.1f ms server time, %s%n",
                round,
                action,
                JOBS,
                state,
                Double.parseDouble(m.group(1)),
                r.body());
          }
        }
      }
    }
  }
}
