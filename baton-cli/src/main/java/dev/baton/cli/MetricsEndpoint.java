package dev.baton.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.baton.Baton;
import dev.baton.metrics.BatonMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * A Prometheus scrape endpoint for one client: binds its {@link BatonMetrics} to a new {@link
 * PrometheusMeterRegistry} and serves {@code GET /metrics} in the Prometheus text format (0.0.4)
 * with the JDK's HTTP server. Used by {@code baton worker --metrics-port} and {@code baton demo}.
 *
 * <p>Requests are served concurrently by {@value #THREADS} daemon threads, {@code
 * baton-metrics-http}, and each exchange (reading the request, scraping, writing the answer) has
 * {@link #EXCHANGE_TIMEOUT} of its thread: past that its thread is interrupted, which closes the
 * connection (the JDK's server reads and writes through interruptible channels). So a client that
 * sends its request slowly, or never finishes it, holds one thread for at most that long and never
 * delays the others. The JDK server's own limits ({@code sun.net.httpserver.maxReqTime}) are system
 * properties read once per JVM, so they are not relied on. The server's dispatcher and the timer,
 * {@code baton-metrics-http-timeout}, are daemons too, so a forgotten endpoint never keeps the JVM
 * alive. {@link #close()} stops them all and closes the binder (its meters and refresh thread),
 * leaving no thread behind. Any other path answers 404, any other method 405. Public for {@code
 * baton demo}'s pods, in {@code dev.baton.cli.demo}; not an API outside this module.
 */
public final class MetricsEndpoint implements AutoCloseable {

  /** The Content-Type of the Prometheus text exposition format. */
  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  /** The path served. */
  static final String PATH = "/metrics";

  /** Threads serving requests: 4. */
  static final int THREADS = 4;

  /** Longest an exchange may hold a thread, from its first byte read to its last written: 10 s. */
  static final Duration EXCHANGE_TIMEOUT = Duration.ofSeconds(10);

  /**
   * The JDK server's switch for TCP_NODELAY on the connections it accepts, read once, when its
   * first server is made in the JVM.
   */
  static final String NODELAY = "sun.net.httpserver.nodelay";

  // The JDK's server writes a response's headers and its body in two segments: with Nagle's
  // algorithm on, the body waits for the client's delayed ACK of the headers, about 40 ms on every
  // request of a kept-alive connection (a fresh one is acknowledged at once). Set unless the
  // application chose.
  static {
    noDelay();
  }

  /** Turns TCP_NODELAY on for the JDK's HTTP servers of this JVM, unless already set either way. */
  static void noDelay() {
    if (System.getProperty(NODELAY) == null) {
      System.setProperty(NODELAY, "true");
    }
  }

  private final HttpServer server;
  private final BoundedExchanges executor;
  private final BatonMetrics metrics;
  private final PrometheusMeterRegistry registry;
  private final URI uri;
  private final int port;
  private boolean closed; // guarded by this

  private MetricsEndpoint(
      HttpServer server,
      BoundedExchanges executor,
      BatonMetrics metrics,
      PrometheusMeterRegistry registry,
      String host) {
    this.server = server;
    this.executor = executor;
    this.metrics = metrics;
    this.registry = registry;
    this.port = server.getAddress().getPort();
    String h = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    this.uri = URI.create("http://" + h + ":" + port + PATH);
  }

  /**
   * Binds BatonMetrics of {@code baton} to a new PrometheusMeterRegistry and serves GET /metrics on
   * {@code host}:{@code port} (port 0 = ephemeral), with the JDK HttpServer.
   *
   * @param host the address to bind, e.g. {@code 127.0.0.1} (local scrapers only) or {@code
   *     0.0.0.0}
   * @throws IOException if the address cannot be bound (in use, not local); nothing is left bound
   *     or running then
   * @throws IllegalArgumentException if {@code port} is outside 0..65535 or {@code host} cannot be
   *     resolved
   * @throws IllegalStateException if a BatonMetrics is already bound to {@code baton}
   */
  public static MetricsEndpoint start(Baton baton, String host, int port) throws IOException {
    return start(baton, host, port, EXCHANGE_TIMEOUT);
  }

  /** As {@link #start(Baton, String, int)}, each exchange cut off after {@code exchangeTimeout}. */
  static MetricsEndpoint start(Baton baton, String host, int port, Duration exchangeTimeout)
      throws IOException {
    Objects.requireNonNull(baton, "baton");
    Objects.requireNonNull(host, "host");
    InetSocketAddress address = new InetSocketAddress(host, port);
    if (address.isUnresolved()) {
      throw new IllegalArgumentException("cannot resolve the metrics host '" + host + "'");
    }
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    BatonMetrics metrics = new BatonMetrics(baton);
    HttpServer server;
    try {
      metrics.bindTo(registry);
      // Created last: an HttpServer that fails before it starts keeps its port bound (its
      // channel stays registered with a selector nobody runs), so nothing may fail after this.
      server = HttpServer.create(address, 0);
    } catch (IOException | RuntimeException e) {
      metrics.close();
      registry.close();
      throw e;
    }
    BoundedExchanges executor = new BoundedExchanges(exchangeTimeout);
    server.setExecutor(executor);
    server.createContext("/", exchange -> serve(exchange, registry));
    startAsDaemon(server);
    return new MetricsEndpoint(server, executor, metrics, registry, host);
  }

  // The server's dispatcher thread takes the daemon flag of the thread that starts it.
  private static void startAsDaemon(HttpServer server) {
    Thread starter = new Thread(server::start, "baton-metrics-start");
    starter.setDaemon(true);
    starter.start();
    boolean interrupted = false;
    while (true) {
      try {
        starter.join();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private static void serve(HttpExchange exchange, PrometheusMeterRegistry registry)
      throws IOException {
    try (exchange) {
      String method = exchange.getRequestMethod();
      if (!PATH.equals(exchange.getRequestURI().getPath())) {
        text(exchange, 404, "not found; the metrics are at " + PATH + "\n");
        return;
      }
      if (!"GET".equals(method) && !"HEAD".equals(method)) {
        exchange.getResponseHeaders().set("Allow", "GET, HEAD");
        text(exchange, 405, "method not allowed; use GET\n");
        return;
      }
      ByteArrayOutputStream body = new ByteArrayOutputStream(64 * 1024);
      try {
        registry.scrape(body, CONTENT_TYPE);
      } catch (RuntimeException e) {
        text(exchange, 500, "cannot write the metrics: " + e + "\n");
        return;
      }
      exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
      if ("HEAD".equals(method)) {
        exchange.sendResponseHeaders(200, -1);
        return;
      }
      exchange.sendResponseHeaders(200, body.size());
      try (OutputStream out = exchange.getResponseBody()) {
        body.writeTo(out);
      }
    }
  }

  private static void text(HttpExchange exchange, int status, String message) throws IOException {
    byte[] bytes = message.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  /**
   * Runs each exchange on a small pool, and interrupts the thread of one that runs past its time.
   * An interrupt meant for one exchange never reaches the next on the same thread: the timer and
   * the exchange's end decide under one lock whether it is still running.
   */
  private static final class BoundedExchanges implements Executor {
    private final ExecutorService pool =
        Executors.newFixedThreadPool(THREADS, daemon("baton-metrics-http"));
    private final ScheduledThreadPoolExecutor timer =
        new ScheduledThreadPoolExecutor(1, daemon("baton-metrics-http-timeout"));
    private final Duration timeout;

    BoundedExchanges(Duration timeout) {
      this.timeout = timeout;
      timer.setRemoveOnCancelPolicy(true);
    }

    @Override
    public void execute(Runnable exchange) {
      pool.execute(
          () -> {
            Thread thread = Thread.currentThread();
            boolean[] running = {true};
            ScheduledFuture<?> cutOff =
                timer.schedule(
                    () -> {
                      synchronized (running) {
                        if (running[0]) {
                          thread.interrupt();
                        }
                      }
                    },
                    timeout.toMillis(),
                    TimeUnit.MILLISECONDS);
            try {
              exchange.run();
            } finally {
              synchronized (running) {
                running[0] = false;
              }
              cutOff.cancel(false);
              Thread.interrupted();
            }
          });
    }

    void shutdown() {
      timer.shutdownNow();
      pool.shutdownNow();
    }

    private static ThreadFactory daemon(String name) {
      return r -> {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
      };
    }
  }

  /** The bound port. */
  public int port() {
    return port;
  }

  /** {@code http://host:port/metrics}, with the host as given. */
  public URI uri() {
    return uri;
  }

  /**
   * Stops the server (a scrape in progress is cut off), its thread and the binder, which removes
   * its meters and stops its refresh thread. Closing twice is fine.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    server.stop(0);
    executor.shutdown();
    metrics.close();
    registry.close();
  }
}
