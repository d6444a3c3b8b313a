package dev.baton.cli;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.EnqueueOptions;
import dev.baton.JobArgs;
import dev.baton.JobState;
import dev.baton.metrics.BatonMetrics;
import dev.baton.testing.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.BindException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link MetricsEndpoint}: what it serves, and that closing it (or failing to start) leaks nothing.
 */
class MetricsEndpointTest {
  private static final Set<String> THREADS =
      Set.of(
          "baton-metrics-http",
          "baton-metrics-http-timeout",
          "baton-metrics",
          "HTTP-Dispatcher",
          "baton-metrics-start");

  record EndpointPing(int n) implements JobArgs {}

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static final AtomicInteger NODES = new AtomicInteger();
  private static String schema;

  // A client per test, so that a binder one test leaks cannot fail the next.
  private Baton baton;
  private String node;

  @BeforeAll
  static void schema() {
    schema = TestDatabase.get().newMigratedSchema();
  }

  @BeforeEach
  void client() {
    node = "endpoint-node-" + NODES.incrementAndGet();
    baton =
        Baton.builder(TestDatabase.get().admin())
            .config(BatonConfig.builder().schema(schema).nodeId(node).queue("default", 1).build())
            .handler(EndpointPing.class, (ctx, ping) -> {})
            .build();
    baton.start();
  }

  @AfterEach
  void stop() {
    baton.stop();
  }

  private static HttpResponse<String> send(String method, URI uri)
      throws IOException, InterruptedException {
    return HTTP.send(
        HttpRequest.newBuilder(uri).method(method, HttpRequest.BodyPublishers.noBody()).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static List<Thread> endpointThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && THREADS.contains(t.getName()))
        .toList();
  }

  @Test
  void servesThePrometheusTextOfTheClientOnAnEphemeralLocalPort() throws Exception {
    long id = baton.enqueue(new EndpointPing(1), EnqueueOptions.defaults()).job().id();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> baton.job(id).orElseThrow().state() == JobState.COMPLETED);
    try (MetricsEndpoint endpoint = MetricsEndpoint.start(baton, "127.0.0.1", 0)) {
      assertThat(endpoint.port()).isPositive();
      assertThat(endpoint.uri())
          .isEqualTo(URI.create("http://127.0.0.1:" + endpoint.port() + "/metrics"));

      HttpResponse<String> get = send("GET", endpoint.uri());
      assertThat(get.statusCode()).isEqualTo(200);
      assertThat(get.headers().firstValue("Content-Type"))
          .hasValue("text/plain; version=0.0.4; charset=utf-8");
      assertThat(get.body())
          .contains("# TYPE baton_jobs_completed_total counter")
          .contains("baton_jobs_completed_total{node=\"" + node + "\"} 1.0")
          .contains("baton_jobs_running{node=\"" + node + "\"} 0.0")
          .contains("baton_queue_depth{queue=\"default\",state=\"available\"}");

      HttpResponse<String> head = send("HEAD", endpoint.uri());
      assertThat(head.statusCode()).isEqualTo(200);
      assertThat(head.body()).isEmpty();
      assertThat(send("POST", endpoint.uri()).statusCode()).isEqualTo(405);
      URI base = endpoint.uri().resolve("/");
      assertThat(send("GET", base).statusCode()).isEqualTo(404);
      assertThat(send("GET", base.resolve("/metricsx")).statusCode()).isEqualTo(404);
      assertThat(send("GET", base.resolve("/metrics/x")).statusCode()).isEqualTo(404);

      // Its threads are daemons: a forgotten endpoint does not keep the JVM alive.
      assertThat(endpointThreads()).isNotEmpty().allMatch(Thread::isDaemon);
    }
  }

  /** A connection that has sent the start of a request and then stops. */
  private static Socket halfSentRequest(MetricsEndpoint endpoint) throws IOException {
    Socket s = new Socket(InetAddress.getLoopbackAddress(), endpoint.port());
    OutputStream out = s.getOutputStream();
    out.write("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".getBytes(US_ASCII));
    out.flush();
    return s;
  }

  /** Whether a thread of the endpoint is reading a request (the JDK server's Request class). */
  private static boolean aThreadIsReadingARequest() {
    return Thread.getAllStackTraces().entrySet().stream()
        .anyMatch(
            e ->
                e.getKey().getName().equals("baton-metrics-http")
                    && Arrays.stream(e.getValue())
                        .anyMatch(f -> f.getClassName().startsWith("sun.net.httpserver.Request")));
  }

  @Test
  void aClientHoldingAHalfSentRequestDelaysNoConcurrentScrape() throws Exception {
    try (MetricsEndpoint endpoint = MetricsEndpoint.start(baton, "127.0.0.1", 0)) {
      assertThat(send("GET", endpoint.uri()).statusCode()).isEqualTo(200);
      try (Socket slow = halfSentRequest(endpoint)) {
        // The slow request has a thread of the endpoint before the scrape is sent.
        await().atMost(Duration.ofSeconds(10)).until(MetricsEndpointTest::aThreadIsReadingARequest);
        CompletableFuture<HttpResponse<String>> scrape =
            HTTP.sendAsync(
                HttpRequest.newBuilder(endpoint.uri()).build(),
                HttpResponse.BodyHandlers.ofString());
        await().atMost(Duration.ofSeconds(1)).until(scrape::isDone);
        assertThat(scrape.get().statusCode()).isEqualTo(200);
        assertThat(scrape.get().body()).contains("baton_jobs_running");
      }
    }
  }

  @Test
  void aRequestDrippedByteByByteIsCutOffAfterTheExchangeTimeout() throws Exception {
    try (MetricsEndpoint endpoint =
            MetricsEndpoint.start(baton, "127.0.0.1", 0, Duration.ofSeconds(1));
        Socket slow = halfSentRequest(endpoint)) {
      AtomicBoolean closed = new AtomicBoolean();
      Thread drip =
          new Thread(
              () -> {
                try {
                  InputStream in = slow.getInputStream();
                  OutputStream out = slow.getOutputStream();
                  slow.setSoTimeout(200);
                  // One byte of a header every 200 ms, until the server closes the connection.
                  for (int i = 0; i < 150; i++) {
                    out.write('x');
                    out.flush();
                    try {
                      if (in.read() < 0) {
                        break;
                      }
                    } catch (java.net.SocketTimeoutException e) {
                      continue;
                    }
                  }
                } catch (IOException e) {
                  // reset by the server: closed as well
                }
                closed.set(true);
              },
              "slow-client");
      drip.setDaemon(true);
      drip.start();
      await().atMost(Duration.ofSeconds(20)).untilTrue(closed);
      // The thread it held serves again.
      assertThat(send("GET", endpoint.uri()).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void theJdkServerSendsWithoutNaglesDelaySoKeptAliveScrapesAreNotHeldBack() throws Exception {
    // Measured, not asserted here (curl of five URLs on one connection): about 44 ms a scrape
    // without it, under 1 ms with it. The JDK server reads the switch when its first is made.
    try (MetricsEndpoint endpoint = MetricsEndpoint.start(baton, "127.0.0.1", 0)) {
      assertThat(System.getProperty(MetricsEndpoint.NODELAY)).isEqualTo("true");
    }
  }

  @Test
  void closeStopsServingAndLeavesNoThreadNorBinderBehind() throws Exception {
    MetricsEndpoint endpoint = MetricsEndpoint.start(baton, "127.0.0.1", 0);
    assertThat(send("GET", endpoint.uri()).statusCode()).isEqualTo(200);
    endpoint.close();
    endpoint.close(); // twice is fine
    assertThatThrownBy(() -> send("GET", endpoint.uri())).isInstanceOf(ConnectException.class);
    await().atMost(Duration.ofSeconds(10)).until(() -> endpointThreads().isEmpty());
    // The client's binder was closed: another one may bind.
    try (BatonMetrics again = new BatonMetrics(baton)) {
      again.bindTo(new SimpleMeterRegistry());
    }
    // And the port is free again.
    try (ServerSocket s = new ServerSocket(endpoint.port(), 1, InetAddress.getLoopbackAddress())) {
      assertThat(s.getLocalPort()).isEqualTo(endpoint.port());
    }
  }

  @Test
  void aPortInUseFailsWithBindExceptionAndLeavesNothingRunning() throws Exception {
    try (ServerSocket busy = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      assertThatThrownBy(() -> MetricsEndpoint.start(baton, "127.0.0.1", busy.getLocalPort()))
          .isInstanceOf(BindException.class);
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> endpointThreads().isEmpty());
    try (BatonMetrics again = new BatonMetrics(baton)) {
      again.bindTo(new SimpleMeterRegistry());
    }
  }

  @Test
  void aClientWithABinderAlreadyFailsAndReleasesThePort() throws Exception {
    int port;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = probe.getLocalPort();
    }
    try (BatonMetrics bound = new BatonMetrics(baton)) {
      bound.bindTo(new SimpleMeterRegistry());
      assertThatThrownBy(() -> MetricsEndpoint.start(baton, "127.0.0.1", port))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("another BatonMetrics is bound");
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> endpointThreads().isEmpty());
    try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      assertThat(s.getLocalPort()).isEqualTo(port);
    }
  }

  @Test
  void anUnresolvableHostOrBadPortIsRefusedBeforeBinding() {
    assertThatThrownBy(() -> MetricsEndpoint.start(baton, "no-such-host.invalid", 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no-such-host.invalid");
    assertThatThrownBy(() -> MetricsEndpoint.start(baton, "127.0.0.1", 70_000))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(endpointThreads()).isEmpty();
  }
}
