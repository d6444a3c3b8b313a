package dev.baton.dashboard;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import dev.baton.Baton;
import dev.baton.admin.BatonAdmin;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * The Baton dashboard: HTML pages and a JSON API over a Baton schema, on the operator API {@link
 * BatonAdmin} (jobs, queues, nodes, leader, periodic schedules, figures). It holds no queue logic
 * of its own: every action is the operator API's, with its state checks.
 *
 * <p>Standalone: {@code ./baton dashboard --database-url ...}. Embedded in an application, either
 * serve it on a port of its own:
 *
 * <pre>{@code
 * Dashboard dashboard = Dashboard.builder(new BatonAdmin(dataSource, "baton"))
 *     .auth(DashboardAuth.bearerToken(System.getenv("BATON_DASHBOARD_TOKEN")))
 *     .build();
 * DashboardServer server = dashboard.serve(new InetSocketAddress("127.0.0.1", 7070));
 * }</pre>
 *
 * or mount {@link #handler()} on an {@link HttpServer} the application already runs, under any
 * path: {@code httpServer.createContext("/baton", dashboard.handler())}. The handler finds its own
 * path from the context, so links work under any prefix. On a servlet container, mount a {@link
 * DashboardServlet} under a path mapping such as {@code /baton/*}, behind the container's own
 * authentication with {@link DashboardAuth#principalInRole}.
 *
 * <p>Security: every request passes {@link DashboardAuth} first; every change is a POST carrying
 * the per-browser CSRF token (a double-submit cookie) from the dashboard's own origin; a read-only
 * dashboard refuses every change. Every value on a page is HTML-escaped, args and errors included.
 * Thread-safe.
 */
public final class Dashboard {

  /** Threads of a server from {@link #serve}: 8 (each request holds one connection briefly). */
  public static final int DEFAULT_THREADS = 8;

  private final DashboardHandler handler;

  private Dashboard(Builder b) {
    this.handler = new DashboardHandler(new Views(b.admin, b.pausedBy), b.auth, b.readOnly);
  }

  /**
   * A builder of a dashboard over the schema of {@code admin}. A queue paused on it records {@code
   * dashboard} as who paused it, as a job retried on it does.
   */
  public static Builder builder(BatonAdmin admin) {
    return new Builder(Objects.requireNonNull(admin, "admin"), Views.ACTOR);
  }

  /**
   * A builder of a dashboard over {@code baton}'s schema, reading and acting through {@code
   * dataSource} with the operator API ({@link BatonAdmin}). {@code baton} need not be started: the
   * dashboard takes only its schema, and its node id as who paused a queue paused here.
   */
  public static Builder builder(Baton baton, DataSource dataSource) {
    Objects.requireNonNull(baton, "baton");
    return new Builder(
        new BatonAdmin(Objects.requireNonNull(dataSource, "dataSource"), baton.config().schema()),
        baton.nodeId());
  }

  /**
   * The dashboard as a handler for the JDK's HTTP server, to mount at any context path. Does its
   * own authentication ({@link Builder#auth}); no {@code Authenticator} is needed on the context.
   */
  public HttpHandler handler() {
    return handler;
  }

  /**
   * Serves the dashboard at {@code address} (port 0 picks a free one) on a JDK HTTP server of its
   * own, with {@value #DEFAULT_THREADS} request threads named {@code baton-dashboard-N}.
   *
   * @throws UncheckedIOException if the address cannot be bound
   */
  public DashboardServer serve(InetSocketAddress address) {
    Objects.requireNonNull(address, "address");
    HttpServer server;
    try {
      server = HttpServer.create(address, 64);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serve the dashboard on " + address, e);
    }
    AtomicInteger n = new AtomicInteger();
    ExecutorService executor =
        Executors.newFixedThreadPool(
            DEFAULT_THREADS,
            r -> {
              Thread t = new Thread(r, "baton-dashboard-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(executor);
    server.createContext("/", handler);
    server.start();
    return new DashboardServer(server, executor);
  }

  /** Settings of a {@link Dashboard}. */
  public static final class Builder {
    private final BatonAdmin admin;
    private String pausedBy;
    private DashboardAuth auth = DashboardAuth.none();
    private boolean readOnly;

    private Builder(BatonAdmin admin, String pausedBy) {
      this.admin = admin;
      this.pausedBy = pausedBy;
    }

    /**
     * Who a queue paused on the dashboard is recorded as paused by ({@link
     * dev.baton.QueueInfo#pausedBy()}); default {@code dashboard}, or the client's node id for
     * {@link Dashboard#builder(Baton, DataSource)}.
     */
    public Builder pausedBy(String pausedBy) {
      this.pausedBy = Objects.requireNonNull(pausedBy, "pausedBy");
      return this;
    }

    /** Who may use it; default {@link DashboardAuth#none()}. */
    public Builder auth(DashboardAuth auth) {
      this.auth = Objects.requireNonNull(auth, "auth");
      return this;
    }

    /** Shows everything and changes nothing: every action is refused with {@code 403}. */
    public Builder readOnly() {
      this.readOnly = true;
      return this;
    }

    /** The dashboard. */
    public Dashboard build() {
      return new Dashboard(this);
    }
  }
}
