package dev.baton.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.admin.BatonAdmin;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A dashboard whose database URL carries user info ("user:password@host", which the driver reads as
 * a host name and quotes in its error): neither its answer nor its log shows the password.
 */
class DashboardMasksPasswordsTest {

  @Test
  void aFailingDatabaseShowsNoPasswordInTheAnswerOrTheLog() throws Exception {
    // The host as a driver reads it from a URL with user info, which it then quotes in its error.
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setServerNames(new String[] {"app:hunter2@db.invalid"});
    ds.setDatabaseName("app");
    DashboardServer server =
        Dashboard.builder(new BatonAdmin(ds, "baton"))
            .build()
            .serve(new InetSocketAddress("127.0.0.1", 0));
    // slf4j-simple, the tests' binding, prints to whatever System.err is at the time.
    PrintStream err = System.err;
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    HttpResponse<String> page;
    System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
    try {
      page = new WebClient(server.uri()).get("/api/overview");
    } finally {
      System.setErr(err);
      server.close();
    }
    assertThat(page.statusCode()).isEqualTo(500);
    assertThat(page.body()).doesNotContain("hunter2");
    // The driver's own java.util.logging line before it is the driver's, not the dashboard's.
    String logged = log.toString(StandardCharsets.UTF_8);
    assertThat(logged).contains("dashboard request GET /api/overview failed");
    assertThat(logged.substring(logged.indexOf("dashboard request")))
        .contains("app:***@db.invalid")
        .doesNotContain("hunter2");
  }
}
