package dev.baton.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testing.Fixture;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The dashboard behind a real nginx (Debian's), proxied with nginx's defaults, which pass on
 * nginx's own upstream address as {@code Host}: so a browser's {@code Origin} (nginx's address)
 * differs from the {@code Host} the dashboard sees. With nginx's address among the dashboard's
 * allowed origins, pages, assets, redirects and every action work through the proxy, and a foreign
 * origin is still refused; without it, every action is refused, unless nginx passes the browser's
 * {@code Host} on. nginx runs as a non-root process (as root, the test drops to {@code nobody} with
 * {@code setpriv}) on loopback, with its own config, prefix, pid and logs in a temp dir, in the
 * foreground as a single process; it is stopped after the class and no process of it is left
 * behind.
 */
class DashboardBehindNginxIT {
  private static final String NGINX = "/usr/sbin/nginx";
  private static final String SETPRIV = "/usr/bin/setpriv";
  private static final String FOREIGN = "http://evil.example";
  private static final Duration WAIT = Duration.ofSeconds(20);

  private static Fixture f;
  private static DashboardServer allowing;
  private static DashboardServer plain;
  private static Path dir;
  private static Process nginx;
  private static URI proxied;
  private static URI proxiedPlain;
  private static URI proxiedWithHost;

  @BeforeAll
  static void start() throws Exception {
    if (!new File(NGINX).canExecute()) {
      String missing = NGINX + " is missing; install it with: apt-get install -y nginx";
      // CI installs it (.ci/run): there a missing nginx is a failure, never a silent skip.
      if ("true".equals(System.getenv("CI"))) {
        throw new AssertionError(missing);
      }
      org.junit.jupiter.api.Assumptions.abort(missing);
    }
    f = new Fixture();
    int port = freePort();
    int plainPort = freePort();
    int hostPort = freePort();
    proxied = URI.create("http://127.0.0.1:" + port + "/");
    proxiedPlain = URI.create("http://127.0.0.1:" + plainPort + "/");
    proxiedWithHost = URI.create("http://127.0.0.1:" + hostPort + "/");
    allowing =
        Dashboard.builder(f.reader(), f.dataSource())
            .allowedOrigins(List.of("http://127.0.0.1:" + port))
            .build()
            .serve(new InetSocketAddress("127.0.0.1", 0));
    plain =
        Dashboard.builder(f.reader(), f.dataSource())
            .build()
            .serve(new InetSocketAddress("127.0.0.1", 0));
    dir = Files.createTempDirectory("baton-nginx-");
    // nginx, not root, writes its pid, logs and buffers here.
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
    Files.writeString(
        dir.resolve("nginx.conf"),
        config(port, allowing.address().getPort(), plainPort, plain.address().getPort(), hostPort));
    startNginx();
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (nginx != null) {
        nginx.destroy();
        if (!nginx.waitFor(10, TimeUnit.SECONDS)) {
          nginx.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        assertThat(nginxProcesses()).as("nginx processes left behind").isEmpty();
      }
    } finally {
      if (allowing != null) {
        allowing.close();
      }
      if (plain != null) {
        plain.close();
      }
      if (f != null) {
        f.close();
      }
      if (dir != null) {
        try (Stream<Path> files = Files.walk(dir)) {
          files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
      }
    }
  }

  @Test
  void pagesAssetsAndRedirectsWorkThroughTheProxy() throws Exception {
    long discarded = Seed.discarded(f, "proxied", "{}");
    WebClient web = browser(proxied, proxied);
    for (String page :
        List.of(
            "/", "/jobs", "/jobs?state=discarded", "/jobs/" + discarded, "/nodes", "/periodic")) {
      HttpResponse<String> r = web.get(page);
      assertThat(r.statusCode()).as(page).isEqualTo(200);
      assertThat(r.headers().firstValue("Server").orElse("")).as(page).startsWith("nginx");
      assertThat(r.body()).as(page).contains("</html>");
    }
    HttpResponse<String> css = web.get("/assets/dashboard.css");
    assertThat(css.statusCode()).isEqualTo(200);
    assertThat(css.headers().firstValue("Content-Type").orElse("")).startsWith("text/css");
    assertThat(web.get("/assets/dashboard.js").statusCode()).isEqualTo(200);
    assertThat(web.get("/api/jobs/" + discarded).body()).contains("\"id\":" + discarded);

    // An action's redirect, followed through the proxy, lands on the job's page with its message.
    HttpResponse<String> retried =
        web.postForm("/jobs/" + discarded + "/retry", "csrf=" + web.token());
    assertThat(retried.statusCode()).as(retried.body()).isEqualTo(303);
    String location = retried.headers().firstValue("Location").orElseThrow();
    assertThat(location).startsWith("/jobs/" + discarded + "?done=retried&job=" + discarded);
    HttpResponse<String> landed = web.get(proxied.resolve(location).toString());
    assertThat(landed.statusCode()).isEqualTo(200);
    assertThat(landed.body()).contains("Job " + discarded);
  }

  @Test
  void everyActionWorksThroughTheProxyFromTheAllowedOrigin() throws Exception {
    WebClient web = browser(proxied, proxied);
    String csrf = "csrf=" + web.token();
    long toRetry = Seed.discarded(f, "acts", "{}");
    long toRun = Seed.scheduled(f, "acts");
    long toCancel = Seed.available(f, "acts");
    long toDelete = Seed.discarded(f, "acts", "{}");
    for (String[] action :
        new String[][] {
          {"/jobs/" + toRetry + "/retry", ""},
          {"/jobs/" + toRun + "/run", ""},
          {"/jobs/" + toCancel + "/cancel", ""},
          {"/jobs/" + toDelete + "/delete", ""},
          {"/queues/acts/pause", ""},
          {"/queues/acts/resume", ""},
        }) {
      HttpResponse<String> r = web.postForm(action[0], csrf);
      assertThat(r.statusCode()).as(action[0] + ": " + r.body()).isEqualTo(303);
    }
    assertThat(Seed.state(f, toRetry)).isEqualTo("available");
    assertThat(Seed.state(f, toRun)).isEqualTo("available");
    assertThat(Seed.state(f, toCancel)).isEqualTo("cancelled");
    assertThat(f.count("SELECT count(*) FROM %s.job WHERE id = " + toDelete)).isZero();

    for (int i = 0; i < 3; i++) {
      Seed.discarded(f, "bulk-acts", "{}");
    }
    HttpResponse<String> bulkRetry =
        web.postForm(
            "/jobs/bulk", csrf + "&action=retry&state=discarded&queue=bulk-acts&expected=3");
    assertThat(bulkRetry.statusCode()).as(bulkRetry.body()).isEqualTo(303);
    assertThat(bulkRetry.headers().firstValue("Location").orElse(""))
        .contains("done=bulk_retry&n=3&");
    Seed.discarded(f, "bulk-acts", "{}");
    HttpResponse<String> bulkDelete =
        web.postForm(
            "/jobs/bulk", csrf + "&action=delete&state=discarded&queue=bulk-acts&expected=1");
    assertThat(bulkDelete.statusCode()).as(bulkDelete.body()).isEqualTo(303);
    assertThat(f.count("SELECT count(*) FROM %s.job WHERE queue = 'bulk-acts'")).isEqualTo(3);

    // The JSON API, as a script behind the same proxy sends it.
    assertThat(web.post("/api/queues/acts/pause").body()).contains("\"paused\"");
    assertThat(web.post("/api/queues/acts/resume").body()).contains("\"resumed\"");
  }

  @Test
  void aForeignOriginIsRefusedThroughTheProxy() throws Exception {
    long id = Seed.discarded(f, "foreign", "{}");
    WebClient evil = browser(proxied, URI.create(FOREIGN + "/"));
    HttpResponse<String> r = evil.postForm("/jobs/" + id + "/retry", "csrf=" + evil.token());
    assertThat(r.statusCode()).isEqualTo(403);
    assertThat(r.body()).contains("request from origin &quot;" + FOREIGN + "&quot; refused");
    assertThat(evil.post("/api/queues/foreign/pause").statusCode()).isEqualTo(403);
    assertThat(Seed.state(f, id)).isEqualTo("discarded");
  }

  @Test
  void withoutTheAllowedOriginEveryActionThroughTheProxyIsRefused() throws Exception {
    long id = Seed.discarded(f, "unlisted", "{}");
    WebClient web = browser(proxiedPlain, proxiedPlain);
    assertThat(web.get("/jobs/" + id).statusCode()).isEqualTo(200);
    HttpResponse<String> r = web.postForm("/jobs/" + id + "/retry", "csrf=" + web.token());
    assertThat(r.statusCode()).isEqualTo(403);
    assertThat(r.body()).contains("not this dashboard&#39;s");
    assertThat(Seed.state(f, id)).isEqualTo("discarded");
  }

  @Test
  void aProxyThatPassesTheBrowsersHostOnNeedsNoAllowedOrigin() throws Exception {
    long id = Seed.discarded(f, "host-passed", "{}");
    WebClient web = browser(proxiedWithHost, proxiedWithHost);
    HttpResponse<String> r = web.postForm("/jobs/" + id + "/retry", "csrf=" + web.token());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(303);
    assertThat(Seed.state(f, id)).isEqualTo("available");
    WebClient evil = browser(proxiedWithHost, URI.create(FOREIGN + "/"));
    assertThat(evil.post("/api/queues/host-passed/pause").statusCode()).isEqualTo(403);
  }

  /** A browser on a page of {@code origin}, talking to the dashboard at {@code root}. */
  private static WebClient browser(URI root, URI origin) {
    String o = origin.getScheme() + "://" + origin.getRawAuthority();
    return new WebClient(root, "Origin", o);
  }

  // nginx's defaults for proxy_pass: Host becomes the upstream's address, Location headers pass
  // unchanged unless they name the upstream.
  private static String config(
      int port, int upstream, int plainPort, int plainUpstream, int hostPort) {
    return """
        daemon off;
        master_process off;
        pid %1$s/nginx.pid;
        error_log %1$s/error.log info;
        events { worker_connections 64; }
        http {
          access_log %1$s/access.log;
          client_body_temp_path %1$s/client_body;
          proxy_temp_path %1$s/proxy;
          fastcgi_temp_path %1$s/fastcgi;
          uwsgi_temp_path %1$s/uwsgi;
          scgi_temp_path %1$s/scgi;
          server {
            listen 127.0.0.1:%2$d;
            location / { proxy_pass http://127.0.0.1:%3$d; }
          }
          server {
            listen 127.0.0.1:%4$d;
            location / { proxy_pass http://127.0.0.1:%5$d; }
          }
          server {
            listen 127.0.0.1:%6$d;
            location / {
              proxy_pass http://127.0.0.1:%5$d;
              proxy_set_header Host $http_host;
            }
          }
        }
        """
        .formatted(dir, port, upstream, plainPort, plainUpstream, hostPort);
  }

  private static void startNginx() throws IOException {
    List<String> cmd = new ArrayList<>();
    if ("root".equals(System.getProperty("user.name"))) {
      cmd.addAll(List.of(SETPRIV, "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"));
    }
    cmd.addAll(
        List.of(
            NGINX,
            "-p",
            dir.toString(),
            "-c",
            dir.resolve("nginx.conf").toString(),
            "-e",
            dir.resolve("error.log").toString()));
    nginx =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("nginx.out").toFile())
            .start();
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(50))
        .failFast("nginx exited: " + describe(), () -> !nginx.isAlive())
        .ignoreExceptions()
        .until(() -> new WebClient(proxied).get("/assets/dashboard.css").statusCode() == 200);
    assertThat(nginxUser()).as("nginx's user").isNotEqualTo("root");
  }

  private static String nginxUser() {
    return nginx.toHandle().info().user().orElse("?");
  }

  private static List<ProcessHandle> nginxProcesses() {
    String marker = dir.toString();
    return ProcessHandle.allProcesses()
        .filter(p -> p.info().commandLine().map(c -> c.contains(marker)).orElse(false))
        .toList();
  }

  private static String describe() {
    try {
      StringBuilder s = new StringBuilder();
      for (String name : List.of("nginx.out", "error.log")) {
        Path p = dir.resolve(name);
        if (Files.exists(p)) {
          s.append('\n').append(name).append(":\n").append(Files.readString(p));
        }
      }
      return s.toString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
