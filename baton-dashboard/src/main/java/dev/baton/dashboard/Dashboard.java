package dev.baton.dashboard;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import dev.baton.Baton;
import dev.baton.admin.BatonAdmin;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
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
  private final Anonymous anonymous;

  private Dashboard(Builder b) {
    this.handler =
        new DashboardHandler(
            new Views(b.admin, b.pausedBy), b.auth, b.readOnly, Set.copyOf(b.allowedOrigins));
    this.anonymous = b.auth instanceof NoAuth ? b.anonymous : Anonymous.NOT_ANONYMOUS;
  }

  /**
   * A builder of a dashboard over the schema of {@code admin}. An action taken on it records the
   * authenticated user ({@link DashboardAuth#user}), else {@code dashboard}.
   */
  public static Builder builder(BatonAdmin admin) {
    return new Builder(Objects.requireNonNull(admin, "admin"), Views.ACTOR);
  }

  /**
   * A builder of a dashboard over {@code baton}'s schema, reading and acting through {@code
   * dataSource} with the operator API ({@link BatonAdmin}). {@code baton} need not be started: the
   * dashboard takes only its schema, and its node id as who acted when the request names no user.
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
   * own, with {@value #DEFAULT_THREADS} request threads named {@code baton-dashboard-N}. Without
   * authentication ({@link DashboardAuth#none()}, the default) it serves only a loopback address
   * unless {@link Builder#allowAnonymous()} was called: anyone who reaches a wider address could
   * act on jobs.
   *
   * <p>It checks nothing in the database before it listens (an application may migrate its schema
   * after this starts): a page asked for while the database cannot be reached, or while the schema
   * is missing or at another version, is a {@code 503} that says which, with the remedy. To fail at
   * start instead, call {@link BatonAdmin#requireLatestSchema()} first, as the {@code baton
   * dashboard} command checks the schema before it listens.
   *
   * @throws IllegalStateException if {@code address} is not a loopback address and the dashboard
   *     has no authentication and was not allowed anonymous access
   * @throws UncheckedIOException if the address cannot be bound
   */
  public DashboardServer serve(InetSocketAddress address) {
    Objects.requireNonNull(address, "address");
    if (anonymous == Anonymous.REFUSED_BEYOND_LOOPBACK && !isLoopback(address)) {
      throw new IllegalStateException(
          "cannot serve the dashboard on "
              + address.getHostString()
              + ":"
              + address.getPort()
              + " without authentication: anyone who reaches it could act on jobs; set"
              + " Dashboard.Builder.auth, or call Dashboard.Builder.allowAnonymous() to serve it"
              + " to anyone anyway");
    }
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

  /** Whether {@code address} is a loopback one (an unresolved name is not). */
  static boolean isLoopback(InetSocketAddress address) {
    return address.getAddress() != null && address.getAddress().isLoopbackAddress();
  }

  /** Whether a dashboard without authentication may serve beyond loopback. */
  private enum Anonymous {
    REFUSED_BEYOND_LOOPBACK,
    ALLOWED,
    NOT_ANONYMOUS
  }

  /** Settings of a {@link Dashboard}. */
  public static final class Builder {
    private final BatonAdmin admin;
    private String pausedBy;
    private DashboardAuth auth = DashboardAuth.none();
    private boolean readOnly;
    private Anonymous anonymous = Anonymous.REFUSED_BEYOND_LOOPBACK;
    private final Set<String> allowedOrigins = new LinkedHashSet<>();

    private Builder(BatonAdmin admin, String pausedBy) {
      this.admin = admin;
      this.pausedBy = pausedBy;
    }

    /**
     * Who an action is recorded as taken by when the request names no user ({@link
     * DashboardAuth#user} is null, as without authentication): who paused a queue ({@link
     * dev.baton.QueueInfo#pausedBy()}), retried or cancelled a job; default {@code dashboard}, or
     * the client's node id for {@link Dashboard#builder(Baton, DataSource)}.
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

    /**
     * Lets {@link Dashboard#serve} serve a dashboard without authentication on an address beyond
     * loopback (e.g. {@code 0.0.0.0}), where it refuses by default: for a network where everyone
     * who can reach the port may act on jobs, or where something in front authenticates.
     */
    public Builder allowAnonymous() {
      this.anonymous = Anonymous.ALLOWED;
      return this;
    }

    /**
     * Origins besides the dashboard's own from which a browser may send a change (an action's
     * POST), e.g. {@code https://ops.example.com}: the address users reach the dashboard at through
     * a reverse proxy that passes on another {@code Host} (nginx's default). A change whose {@code
     * Origin} header is neither the request's {@code Host} nor one of these is refused with {@code
     * 403}; the CSRF token is required either way. Default: none. Each is a scheme ({@code http} or
     * {@code https}), a host and an optional port, without a path; compared without case and
     * without the scheme's default port.
     *
     * @throws IllegalArgumentException if one is not such an origin
     */
    public Builder allowedOrigins(Collection<String> origins) {
      Objects.requireNonNull(origins, "origins");
      for (String o : origins) {
        String normal = DashboardHandler.origin(Objects.requireNonNull(o, "origin"));
        if (normal == null) {
          throw new IllegalArgumentException(
              "invalid allowed origin: expected a scheme (http or https), a host and an optional"
                  + " port without a path, e.g. https://ops.example.com:8443, got \""
                  + o
                  + "\"");
        }
        allowedOrigins.add(normal);
      }
      return this;
    }

    /** The dashboard. */
    public Dashboard build() {
      return new Dashboard(this);
    }
  }
}
