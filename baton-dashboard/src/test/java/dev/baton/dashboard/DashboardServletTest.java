package dev.baton.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.QueueInfo;
import dev.baton.testing.Fixture;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.security.Principal;
import org.apache.catalina.Context;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link DashboardServlet} on a real Tomcat, under context path {@code /shop} and servlet mapping
 * {@code /baton/*}: links, assets, the CSRF cookie and redirects under that mount point; the
 * container's user and role through {@link DashboardAuth#principalInRole}; bad input still a 4xx
 * with a message; a form read in UTF-8.
 */
class DashboardServletTest {
  private static final String ROLE = "BATON_ADMIN";
  private static Fixture f;
  private static Tomcat tomcat;
  private static URI root;

  @BeforeAll
  static void serve() throws Exception {
    f = new Fixture();
    DashboardServlet dashboard =
        new DashboardServlet(
            Dashboard.builder(f.reader(), f.dataSource())
                .auth(DashboardAuth.principalInRole(ROLE))
                .build());
    tomcat = new Tomcat();
    tomcat.setBaseDir(Files.createTempDirectory("baton-tomcat").toString());
    tomcat.setPort(0);
    tomcat.getConnector();
    Context shop = tomcat.addContext("/shop", null);
    Tomcat.addServlet(shop, "baton", new AsUserOfHeader(dashboard));
    shop.addServletMappingDecoded("/baton/*", "baton");
    tomcat.start();
    root = URI.create("http://127.0.0.1:" + tomcat.getConnector().getLocalPort() + "/");
  }

  @AfterAll
  static void close() throws Exception {
    tomcat.stop();
    tomcat.destroy();
    f.close();
  }

  @Test
  void linksAssetsCookieAndRedirectsLiveUnderTheMountPoint() throws Exception {
    WebClient admin = new WebClient(root.resolve("/shop/baton/"), "X-User", "admin:" + ROLE);
    HttpResponse<String> page = admin.get("/shop/baton/");

    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.body())
        .contains("href=\"/shop/baton/assets/dashboard.css\"")
        .contains("href=\"/shop/baton/jobs\"");
    assertThat(page.headers().allValues("Set-Cookie"))
        .anyMatch(c -> c.startsWith("baton_csrf=") && c.contains("Path=/shop/baton;"));
    assertThat(admin.get("/shop/baton").statusCode()).isEqualTo(200);
    HttpResponse<String> css = admin.get("/shop/baton/assets/dashboard.css");
    assertThat(css.statusCode()).isEqualTo(200);
    assertThat(css.headers().firstValue("Content-Type")).get().asString().startsWith("text/css");

    HttpResponse<String> paused =
        admin.postForm("/shop/baton/queues/servlet-q/pause", "csrf=" + admin.token());
    assertThat(paused.statusCode()).isEqualTo(303);
    assertThat(paused.headers().firstValue("Location"))
        .get()
        .asString()
        .startsWith("/shop/baton/?done=paused&queue=servlet-q");
    assertThat(f.reader().queues())
        .filteredOn(q -> q.name().equals("servlet-q"))
        .extracting(QueueInfo::paused)
        .containsExactly(true);
    assertThat(admin.postForm("/shop/baton/queues/servlet-q/resume", "").statusCode())
        .isEqualTo(403);
  }

  @Test
  void containersUserMustBePresentAndInTheRole() throws Exception {
    assertThat(new WebClient(root).get("/shop/baton/").statusCode()).isEqualTo(401);
    HttpResponse<String> clerk =
        new WebClient(root, "X-User", "clerk:CLERK").get("/shop/baton/api/overview");
    assertThat(clerk.statusCode()).isEqualTo(403);
    assertThat(clerk.body()).contains("may not use the dashboard");
    assertThat(new WebClient(root, "X-User", "admin:" + ROLE).get("/shop/baton/api/overview"))
        .extracting(HttpResponse::statusCode)
        .isEqualTo(200);
  }

  @Test
  void badInputStaysA4xxWithAMessage() throws Exception {
    WebClient admin = new WebClient(root, "X-User", "admin:" + ROLE);

    HttpResponse<String> limit = admin.get("/shop/baton/api/jobs?limit=0");
    assertThat(limit.statusCode()).isEqualTo(400);
    assertThat(limit.body()).contains("limit: expected a page size");
    assertThat(admin.get("/shop/baton/jobs?state=done").body()).contains("state: expected one of");
    assertThat(admin.get("/shop/baton/nowhere").statusCode()).isEqualTo(404);
    HttpResponse<String> put =
        admin.send(
            HttpRequest.newBuilder(root.resolve("/shop/baton/"))
                .PUT(HttpRequest.BodyPublishers.noBody()));
    assertThat(put.statusCode()).isEqualTo(405);
    HttpResponse<String> head =
        admin.send(
            HttpRequest.newBuilder(root.resolve("/shop/baton/"))
                .method("HEAD", HttpRequest.BodyPublishers.noBody()));
    assertThat(head.statusCode()).isEqualTo(200);
    assertThat(head.body()).isEmpty();
  }

  @Test
  void aMalformedPercentEscapeGetsTheDashboardsOwn400WithItsSecurityHeaders() throws Exception {
    // Sent as bytes: an HTTP client refuses to build such an address.
    try (java.net.Socket socket = new java.net.Socket("127.0.0.1", root.getPort())) {
      socket
          .getOutputStream()
          .write(
              ("GET /shop/baton/jobs?queue=%zz HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                      + "X-User: admin:"
                      + ROLE
                      + "\r\nConnection: close\r\n\r\n")
                  .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      String answer =
          new String(
              socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      assertThat(answer).startsWith("HTTP/1.1 400");
      assertThat(answer.toLowerCase(java.util.Locale.ROOT))
          .contains("x-frame-options: deny", "content-security-policy: default-src 'self'");
      assertThat(answer)
          .contains("invalid parameter queue: expected a queue name", "&quot;%zz&quot;");
    }
  }

  @Test
  void formIsReadAsUtf8() throws Exception {
    WebClient admin = new WebClient(root.resolve("/shop/baton/"), "X-User", "admin:" + ROLE);

    HttpResponse<String> r =
        admin.postForm(
            "/shop/baton/jobs/bulk",
            "csrf=" + admin.token() + "&action=retry&state=discarded&key=%C3%BCber-key");

    assertThat(r.statusCode()).isEqualTo(303);
    assertThat(r.headers().firstValue("Location")).get().asString().contains("key=%C3%BCber-key");
  }

  /**
   * Stands for the container's authentication: header {@code X-User: NAME:ROLE} makes the request's
   * user NAME in role ROLE; without it there is no user.
   */
  private static final class AsUserOfHeader extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private final transient DashboardServlet dashboard;

    AsUserOfHeader(DashboardServlet dashboard) {
      this.dashboard = dashboard;
    }

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response)
        throws IOException {
      String user = request.getHeader("X-User");
      if (user == null) {
        dashboard.service(request, response);
        return;
      }
      String[] nameAndRole = user.split(":", 2);
      Principal principal = () -> nameAndRole[0];
      dashboard.service(
          new HttpServletRequestWrapper(request) {
            @Override
            public Principal getUserPrincipal() {
              return principal;
            }

            @Override
            public boolean isUserInRole(String role) {
              return role.equals(nameAndRole[1]);
            }
          },
          response);
    }
  }
}
