package dev.baton.dashboard;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A running dashboard on the JDK's HTTP server, from {@link Dashboard#serve}. {@link #close()}
 * stops it: requests in progress get up to a second to finish. Closing twice is fine.
 */
public final class DashboardServer implements AutoCloseable {

  private static final Duration STOP_GRACE = Duration.ofSeconds(1);

  private final HttpServer server;
  private final ExecutorService executor;

  DashboardServer(HttpServer server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
  }

  /** The address it listens on (the port chosen when 0 was asked for). */
  public InetSocketAddress address() {
    return server.getAddress();
  }

  /** Its root URL, e.g. {@code http://127.0.0.1:7070/}. */
  public URI uri() {
    InetSocketAddress a = address();
    String host = a.getAddress().getHostAddress();
    if (host.contains(":")) {
      host = "[" + host + "]";
    }
    return URI.create("http://" + host + ":" + a.getPort() + "/");
  }

  /** Stops listening, then stops the request threads. */
  @Override
  public void close() {
    server.stop((int) STOP_GRACE.toSeconds());
    executor.shutdown();
    try {
      executor.awaitTermination(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    executor.shutdownNow();
  }
}
