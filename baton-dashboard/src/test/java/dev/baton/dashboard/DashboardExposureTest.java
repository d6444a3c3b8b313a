package dev.baton.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.testing.Fixture;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Where a dashboard may be reached and from where it may be changed: without authentication it
 * serves beyond loopback only when {@link Dashboard.Builder#allowAnonymous()} says so; an allowed
 * origin lets a change through whose {@code Origin} is not the request's {@code Host} (a proxy in
 * front), compared as an origin, and a value that is not an origin is refused naming what was
 * expected.
 */
class DashboardExposureTest {
  private static final InetSocketAddress EVERY_ADDRESS = new InetSocketAddress("0.0.0.0", 0);

  private static Fixture f;

  @BeforeAll
  static void schema() {
    f = new Fixture();
  }

  @AfterAll
  static void close() {
    f.close();
  }

  @Test
  void withoutAuthenticationItRefusesToServeBeyondLoopbackNamingTheSetting() {
    Dashboard anonymous = Dashboard.builder(f.reader(), f.dataSource()).build();

    assertThatThrownBy(() -> anonymous.serve(EVERY_ADDRESS))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("cannot serve the dashboard on 0.0.0.0")
        .hasMessageContaining("without authentication")
        .hasMessageContaining("Dashboard.Builder.allowAnonymous()");
    try (DashboardServer loopback = anonymous.serve(new InetSocketAddress("127.0.0.1", 0))) {
      assertThat(loopback.address().getPort()).isPositive();
    }
  }

  @Test
  void itServesBeyondLoopbackWithAuthenticationOrWhenAllowedAnonymous() throws Exception {
    Dashboard allowed = Dashboard.builder(f.reader(), f.dataSource()).allowAnonymous().build();
    try (DashboardServer s = allowed.serve(EVERY_ADDRESS)) {
      URI local = URI.create("http://127.0.0.1:" + s.address().getPort() + "/");
      assertThat(new WebClient(local).get("/").statusCode()).isEqualTo(200);
    }
    Dashboard withToken =
        Dashboard.builder(f.reader(), f.dataSource())
            .auth(DashboardAuth.bearerToken("a-token-of-sixteen-or-more"))
            .build();
    try (DashboardServer s = withToken.serve(EVERY_ADDRESS)) {
      URI local = URI.create("http://127.0.0.1:" + s.address().getPort() + "/");
      assertThat(new WebClient(local).get("/").statusCode()).isEqualTo(401);
    }
  }

  @Test
  void anAllowedOriginLetsAChangeThroughWhoseOriginIsNotTheHost() throws Exception {
    try (DashboardServer s =
        Dashboard.builder(f.reader(), f.dataSource())
            .allowedOrigins(List.of("HTTPS://Ops.Example.com:443", "http://proxy.test:8080"))
            .build()
            .serve(new InetSocketAddress("127.0.0.1", 0))) {
      long a = Seed.discarded(f, "origins", "{}");
      long b = Seed.discarded(f, "origins", "{}");
      long c = Seed.discarded(f, "origins", "{}");
      assertThat(retry(s, a, "https://ops.example.com")).isEqualTo(303);
      assertThat(retry(s, b, "http://proxy.test:8080")).isEqualTo(303);
      assertThat(retry(s, c, "http://proxy.test:8081")).isEqualTo(403);
      assertThat(retry(s, c, "https://ops.example.com.evil.test")).isEqualTo(403);
      assertThat(retry(s, c, "null")).isEqualTo(403);
      assertThat(Seed.state(f, a)).isEqualTo("available");
      assertThat(Seed.state(f, b)).isEqualTo("available");
      assertThat(Seed.state(f, c)).isEqualTo("discarded");
    }
  }

  @Test
  void aValueThatIsNotAnOriginIsRefusedNamingWhatWasExpected() {
    for (String bad :
        List.of(
            "ops.example.com",
            "https://ops.example.com/baton",
            "ftp://ops.example.com",
            "https://user@ops.example.com",
            "")) {
      assertThatThrownBy(
              () -> Dashboard.builder(f.reader(), f.dataSource()).allowedOrigins(List.of(bad)))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("invalid allowed origin: expected a scheme (http or https)")
          .hasMessageContaining("got \"" + bad + "\"");
    }
  }

  private static int retry(DashboardServer s, long id, String origin) throws Exception {
    WebClient web = new WebClient(s.uri(), "Origin", origin);
    return web.postForm("/jobs/" + id + "/retry", "csrf=" + web.token()).statusCode();
  }
}
