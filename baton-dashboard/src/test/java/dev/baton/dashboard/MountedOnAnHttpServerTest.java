package dev.baton.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.baton.Baton;
import dev.baton.QueueInfo;
import dev.baton.testing.Fixture;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The mount of docs/dashboard.md, as written there: the dashboard's handler under {@code /baton} of
 * an application's own JDK {@code HttpServer}, behind HTTP basic authentication; links and actions
 * live under the mount point, and a request without the password is refused.
 */
class MountedOnAnHttpServerTest {

  @Test
  void servesUnderItsPathBehindBasicAuth() throws Exception {
    String password = "mounted-dashboard-password";
    try (Fixture f = new Fixture()) {
      Baton baton = f.reader();
      DataSource dataSource = f.dataSource();
      HttpServer httpServer = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      // docs:begin mount
      Dashboard dashboard =
          Dashboard.builder(baton, dataSource).auth(DashboardAuth.basic("ops", password)).build();
      httpServer.createContext("/baton", dashboard.handler());
      // or, on a servlet container, behind the container's authentication:
      //   new DashboardServlet(dashboard) mapped to "/baton/*",
      //   with .auth(DashboardAuth.principalInRole("BATON_ADMIN"))
      // or, on a port of its own:
      //   DashboardServer server = dashboard.serve(new InetSocketAddress("127.0.0.1", 7070));
      // docs:end mount
      httpServer.start();
      try {
        URI root = URI.create("http://127.0.0.1:" + httpServer.getAddress().getPort() + "/baton/");
        String basic =
            "Basic "
                + Base64.getEncoder()
                    .encodeToString(("ops:" + password).getBytes(StandardCharsets.UTF_8));

        assertThat(new WebClient(root).get("/baton/").statusCode()).isEqualTo(401);
        WebClient ops = new WebClient(root, "Authorization", basic);
        HttpResponse<String> page = ops.get("/baton/");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("href=\"/baton/jobs\"");

        HttpResponse<String> paused =
            ops.postForm("/baton/queues/mounted-q/pause", "csrf=" + ops.token());
        assertThat(paused.statusCode()).isEqualTo(303);
        assertThat(baton.queues())
            .filteredOn(q -> q.name().equals("mounted-q"))
            .singleElement()
            .extracting(QueueInfo::paused)
            .isEqualTo(true);
      } finally {
        httpServer.stop(0);
      }
    }
  }
}
