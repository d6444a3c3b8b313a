package dev.baton.dashboard;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.baton.Job;
import dev.baton.JobState;
import dev.baton.SchemaNotMigratedException;
import dev.baton.SchemaTooNewException;
import dev.baton.Secrets;
import dev.baton.admin.JobAdmin;
import dev.baton.admin.JobBrowser;
import dev.baton.admin.StatsAdmin;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes a request to its page, API answer or action, after the checks every request passes:
 * authentication, then for a POST the read-only switch, the origin and the CSRF token. Answers bad
 * input with a 4xx and a message, and a failure of its own with a 500 that names no internals (the
 * stack trace goes to the log). Every answer carries {@code Server-Timing: app;dur=<ms>}.
 */
final class DashboardHandler implements HttpHandler {
  private static final Logger log = LoggerFactory.getLogger(DashboardHandler.class);

  /** The cookie holding the browser's CSRF token. */
  static final String CSRF_COOKIE = "baton_csrf";

  /** The form field, or header for the JSON API, that must repeat the cookie's token. */
  static final String CSRF_FIELD = "csrf";

  static final String CSRF_HEADER = "X-Baton-Csrf";

  /** Where the sign-in form of token mode posts. */
  static final String SIGN_IN = "/sign-in";

  private static final Pattern JOB = Pattern.compile("/jobs/([^/]+)");
  private static final Pattern JOB_ACTION = Pattern.compile("/jobs/([^/]+)/([a-z]+)");
  private static final Pattern QUEUE_ACTION = Pattern.compile("/queues/([^/]+)/([a-z]+)");
  private static final Map<String, String> ASSETS =
      Map.of(
          "/assets/dashboard.css", "text/css; charset=utf-8",
          "/assets/dashboard.js", "text/javascript; charset=utf-8");

  private final Views views;
  private final DashboardAuth auth;
  private final boolean readOnly;
  private final Set<String> allowedOrigins;
  private final ObjectMapper json;
  private final SecureRandom random = new SecureRandom();

  DashboardHandler(Views views, DashboardAuth auth, boolean readOnly, Set<String> allowedOrigins) {
    this.views = views;
    this.auth = auth;
    this.readOnly = readOnly;
    this.allowedOrigins = allowedOrigins;
    this.json =
        new ObjectMapper()
            .registerModule(new JavaTimeModule())
            .registerModule(
                new SimpleModule()
                    .addSerializer(
                        JobState.class,
                        new StdSerializer<>(JobState.class) {
                          @Override
                          public void serialize(JobState s, JsonGenerator g, SerializerProvider p)
                              throws IOException {
                            // As stored and as the filters take them.
                            g.writeString(s.dbName());
                          }
                        }))
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
  }

  @Override
  public void handle(HttpExchange ex) throws IOException {
    long start = System.nanoTime();
    boolean api = false;
    try (ex) {
      Request r = new Request(ex);
      api = r.path.startsWith("/api/");
      try {
        if (!api && ASSETS.containsKey(r.path) && !r.method.equals("POST")) {
          // The style and script of every page, the 401 page's included: nothing secret.
          asset(r, r.path, start);
          return;
        }
        if (!api && r.path.equals(SIGN_IN) && auth instanceof TokenAuth token) {
          signIn(r, token, start);
          return;
        }
        if (!auth.allows(ex)) {
          String challenge = auth.challenge();
          if (challenge != null && !challenge.isEmpty()) {
            ex.getResponseHeaders().set("WWW-Authenticate", challenge);
          }
          throw new BadRequest(401, "authentication required");
        }
        if (!auth.authorizes(ex)) {
          throw new BadRequest(403, "this user may not use the dashboard");
        }
        route(r, api, start);
      } catch (BadRequest e) {
        error(r, api, e.status(), e.getMessage(), start);
      } catch (SchemaNotMigratedException | SchemaTooNewException e) {
        // A dashboard mounted on a schema that is missing or at another version: say so at once.
        error(
            r,
            api,
            503,
            e.getMessage()
                + "; apply this version's migrations to it (baton migrate, or Migrator.up())",
            start);
      } catch (IllegalArgumentException e) {
        // The admin API's own checks of a value given here (a cursor, a page size).
        error(r, api, 400, e.getMessage(), start);
      } catch (RuntimeException e) {
        log.warn("dashboard request {} {} failed", r.method, r.path, Secrets.mask(e));
        String state = sqlState(e);
        if (state != null
            && (state.startsWith("08") || state.startsWith("28") || state.equals("3D000"))) {
          // No connection: refused, no such database, authentication failed.
          error(r, api, 503, "the dashboard cannot reach its database (see its log)", start);
        } else if ("42P01".equals(state) || "3F000".equals(state) || "42703".equals(state)) {
          // No such table, schema or column: a schema missing or at another version.
          error(
              r,
              api,
              503,
              "schema "
                  + views.admin.schema()
                  + " has no Baton tables, or not this version's; apply this version's migrations"
                  + " to it (baton migrate, or Migrator.up())",
              start);
        } else {
          error(r, api, 500, "the dashboard could not answer (see its log)", start);
        }
      }
    }
  }

  private void route(Request r, boolean api, long start) throws IOException {
    String path = api ? r.path.substring(4) : r.path;
    if (r.method.equals("POST")) {
      checkChange(r);
      post(r, api, path, start);
      return;
    }
    if (!r.method.equals("GET") && !r.method.equals("HEAD")) {
      r.exchange.getResponseHeaders().set("Allow", "GET, HEAD, POST");
      throw new BadRequest(405, "method " + r.method + " is not allowed; use GET or POST");
    }
    String csrf = csrfToken(r);
    Pages pages = new Pages(r.base, csrf, readOnly);
    Instant now = Instant.now();
    Matcher m;
    if (path.equals("/") || path.equals("/overview")) {
      if (api) {
        sendJson(r, 200, overviewJson(), start);
      } else {
        sendPage(r, "Queues", pages.overview(views.overview()), start);
      }
    } else if (!api && path.equals("/fragment/queues")) {
      send(r, 200, "text/html; charset=utf-8", pages.queues(views.overview()), start);
    } else if (path.equals("/jobs")) {
      r.requireListParams();
      JobBrowser.Filter f = r.filter();
      int limit = r.limit();
      String after = r.param("after");
      JobBrowser.Page page = views.admin.page(f, after, limit);
      if (api) {
        ObjectNode o = json.createObjectNode();
        o.set("jobs", json.valueToTree(page.jobs()));
        o.put("next", page.next());
        o.put("scanLimited", page.scanLimited());
        o.set("searchedUpTo", json.valueToTree(page.searchedUpTo()));
        sendJson(r, 200, o, start);
      } else {
        Pages.ListAids aids =
            new Pages.ListAids(
                views.tabCounts(f), views.queueNames(), views.admin.kinds(f.queue()));
        sendPage(r, "Jobs", live(r, pages.jobs(f, limit, page, after == null, now, aids)), start);
      }
    } else if (!api && path.equals("/jobs/bulk")) {
      if (readOnly) {
        throw new BadRequest(403, "this dashboard is read-only; actions are turned off");
      }
      JobBrowser.Filter f = r.filter();
      Views.BulkAction action = Views.BulkAction.of(r.param("action"));
      sendPage(
          r,
          "Bulk " + action.param,
          pages.bulkConfirm(action, f, views.bulkCount(action, f)),
          start);
    } else if ((m = JOB.matcher(path)).matches()) {
      Job job = views.job(Request.id("id", m.group(1)));
      JobAdmin.Uniqueness unique = views.admin.uniqueness(job.id()).orElse(null);
      Views.JobFlow flow = views.flow(job.id());
      if (api) {
        ObjectNode o = json.valueToTree(job);
        o.set("unique", json.valueToTree(unique));
        o.set("workflow", json.valueToTree(flow.workflow()));
        sendJson(r, 200, o, start);
      } else {
        sendPage(r, "Job " + job.id(), live(r, pages.job(job, unique, flow, now)), start);
      }
    } else if (path.equals("/nodes")) {
      Views.Cluster c = views.cluster();
      if (api) {
        ObjectNode o = json.createObjectNode();
        o.set("nodes", json.valueToTree(c.nodes()));
        o.set("leader", json.valueToTree(c.leader().orElse(null)));
        sendJson(r, 200, o, start);
      } else {
        sendPage(r, "Nodes", pages.nodes(c, now), start);
      }
    } else if (path.equals("/failures")) {
      String queue = Request.queue("queue", r.param("queue"));
      List<StatsAdmin.FailureGroup> groups =
          views.admin.failures(Views.CHART_WINDOW, Views.FAILURE_GROUPS).stream()
              .filter(g -> queue == null || g.key().queue().equals(queue))
              .toList();
      if (api) {
        sendJson(r, 200, json.createObjectNode().set("failures", json.valueToTree(groups)), start);
      } else {
        sendPage(r, "Failures", pages.failures(groups, queue, now), start);
      }
    } else if (path.equals("/times")) {
      String window = r.param("window") == null ? "1h" : r.param("window");
      java.time.Duration d = Views.TIME_WINDOWS.get(window);
      if (d == null) {
        throw BadRequest.of(
            "invalid parameter window: expected one of 1h, 24h, 7d, got " + Request.shown(window));
      }
      List<StatsAdmin.Latency> rows = views.admin.latencies(d, Views.TIME_SAMPLE);
      if (api) {
        sendJson(r, 200, json.createObjectNode().set("times", json.valueToTree(rows)), start);
      } else {
        sendPage(r, "Wait and run times", pages.times(rows, window, now), start);
      }
    } else if (path.equals("/history")) {
      String range = r.param("range") == null ? "24h" : r.param("range");
      Views.HistoryRange hr = Views.HISTORY_RANGES.get(range);
      if (hr == null) {
        throw BadRequest.of(
            "invalid parameter range: expected one of 1h, 24h, 7d, got " + Request.shown(range));
      }
      List<StatsAdmin.QueueHistory> rows = views.admin.history(hr.range(), hr.bucket());
      if (api) {
        ObjectNode o = json.createObjectNode();
        o.put("range", range);
        o.put("bucketSeconds", hr.bucket().toSeconds());
        o.set("history", json.valueToTree(rows));
        sendJson(r, 200, o, start);
      } else {
        sendPage(r, "History", pages.history(rows, range, hr, now), start);
      }
    } else if (path.equals("/periodic")) {
      if (api) {
        sendJson(r, 200, json.valueToTree(views.admin.periodic()), start);
      } else {
        sendPage(r, "Periodic jobs", pages.periodic(views.admin.periodic()), start);
      }
    } else {
      throw new BadRequest(404, "no page at " + Request.shown(r.path));
    }
  }

  private void post(Request r, boolean api, String path, long start) throws IOException {
    Matcher m;
    Views.Outcome o;
    String back;
    String by = actor(r);
    if (path.equals("/jobs/bulk")) {
      JobBrowser.Filter f = r.filter();
      Views.BulkAction action = Views.BulkAction.of(r.param("action"));
      List<String> selected = r.formAll("ids");
      Views.BulkOutcome b;
      if (!selected.isEmpty()) {
        List<Long> ids = new ArrayList<>(selected.size());
        for (String id : selected) {
          ids.add(Request.id("ids", id));
        }
        b = views.bulk(action, ids, by);
      } else {
        String expected = r.param("expected");
        b = views.bulk(action, f, expected == null ? -1 : Request.id("expected", expected), by);
      }
      if (api) {
        ObjectNode n = json.createObjectNode();
        n.put("action", b.action()).put("done", b.done()).put("skipped", b.skipped());
        n.put("message", b.message());
        sendJson(r, 200, n, start);
      } else {
        redirect(
            r,
            "/jobs?" + Pages.query(f, JobBrowser.DEFAULT_PAGE_SIZE, null),
            Banner.bulkQuery(action.param, b.done(), b.skipped()));
      }
      return;
    } else if ((m = JOB_ACTION.matcher(path)).matches()) {
      long id = Request.id("id", m.group(1));
      o =
          switch (m.group(2)) {
            case "retry" -> views.retry(id, by);
            case "run" -> views.runNow(id, by);
            case "cancel" -> views.cancel(id, by);
            case "delete" -> views.delete(id, by);
            default ->
                throw new BadRequest(
                    404,
                    "no job action "
                        + Request.shown(m.group(2))
                        + "; expected retry, run, cancel or delete");
          };
      // A deleted job's page is gone: back to the list (also when a second submission of the
      // same delete finds nothing).
      back =
          o.outcome().equals("deleted") || o.outcome().equals("not_found")
              ? "/jobs"
              : "/jobs/" + id;
      back += "?" + Banner.query(o.outcome(), id, null);
    } else if ((m = QUEUE_ACTION.matcher(path)).matches()) {
      String queue = Request.queue("queue", decode(m.group(1)));
      Integer cap = m.group(2).equals("cap") ? Views.backlogCap(queue, r.param("cap")) : null;
      o =
          switch (m.group(2)) {
            case "pause" -> views.pause(queue, by);
            case "resume" -> views.resume(queue, by);
            case "cap" -> views.setBacklogCap(queue, cap, by);
            case "uncap" -> views.removeBacklogCap(queue, by);
            case "limit" -> {
              cap = Views.limit(queue, "concurrency limit", r.param("limit"), 0);
              yield views.limitConcurrency(queue, cap, by);
            }
            case "keylimit" -> {
              String field = Views.keyField(queue, "key field", r.param("key_field"));
              cap = Views.limit(queue, "limit per key", r.param("key_limit"), 1);
              yield views.limitConcurrencyPerKey(queue, field, cap, by);
            }
            case "rate" -> {
              cap = Views.limit(queue, "rate limit", r.param("rate"), 1);
              Duration period = Views.ratePeriod(queue, r.param("period"));
              String perKey = r.param("rate_key_field");
              // the field left empty: a rate of the whole queue
              yield perKey == null || perKey.isBlank()
                  ? views.limitRate(queue, cap, period, by)
                  : views.limitRatePerKey(
                      queue, Views.keyField(queue, "rate key field", perKey), cap, period, by);
            }
            case "unlimit" -> views.removeLimit(queue, "limit", by);
            case "unkeylimit" -> views.removeLimit(queue, "key_limit", by);
            case "unrate" -> views.removeLimit(queue, "rate", by);
            default ->
                throw new BadRequest(
                    404,
                    "no queue action "
                        + Request.shown(m.group(2))
                        + "; expected pause, resume, cap, uncap, limit, unlimit, keylimit,"
                        + " unkeylimit, rate or unrate");
          };
      back = "/?" + Banner.query(o.outcome(), null, queue);
      if (cap != null) {
        back += "&n=" + cap;
      }
    } else {
      throw new BadRequest(404, "no action at " + Request.shown(r.path));
    }
    if (api) {
      ObjectNode n = json.createObjectNode();
      n.put("outcome", o.outcome()).put("message", o.message());
      n.set("job", json.valueToTree(o.job()));
      sendJson(r, o.status(), n, start);
    } else if (o.status() >= 400 && !o.outcome().equals("not_found")) {
      error(r, false, o.status(), o.message(), start);
    } else {
      redirect(r, back, null);
    }
  }

  /** Who takes an action: the authenticated user, else the dashboard's own name. */
  private String actor(Request r) {
    String user = auth.user(r.exchange);
    return user == null || user.isBlank() ? views.defaultActor() : user.strip();
  }

  /**
   * Signing in with the bearer token from a browser: a form on the {@code 401} page posts the token
   * here; the right one sets the sign-in cookie and goes on to the page asked for. From this
   * dashboard's own origin only, like every change.
   */
  private void signIn(Request r, TokenAuth token, long start) throws IOException {
    if (!r.method.equals("POST")) {
      throw new BadRequest(405, "method " + r.method + " is not allowed at " + SIGN_IN);
    }
    checkOrigin(r);
    String given = r.form().get("token");
    if (!token.accepts(given)) {
      throw new BadRequest(401, "wrong token; try again");
    }
    String next = r.form().get("next");
    if (next == null || !next.startsWith("/") || next.startsWith("//") || next.contains("\\")) {
      next = "/";
    }
    r.exchange
        .getResponseHeaders()
        .add(
            "Set-Cookie",
            TokenAuth.COOKIE
                + "="
                + TokenAuth.cookieValue(given)
                + "; Path="
                + (r.base.isEmpty() ? "/" : r.base)
                + "; HttpOnly; SameSite=Strict");
    r.exchange.getResponseHeaders().set("Location", r.base + next);
    r.exchange.sendResponseHeaders(303, -1);
  }

  /** The SQL state of the first SQLException among {@code e}'s causes, or null. */
  private static String sqlState(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.sql.SQLException sql && sql.getSQLState() != null) {
        return sql.getSQLState();
      }
    }
    return null;
  }

  private static String decode(String segment) {
    try {
      return java.net.URLDecoder.decode(segment, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw BadRequest.of("malformed path segment " + Request.shown(segment));
    }
  }

  // ---------------------------------------------------------------- checks

  /**
   * A change must come from this dashboard's own pages (or a script that copies the cookie into the
   * header): read-only refuses all; a browser's cross-site request is refused by its Origin (and
   * Sec-Fetch-Site) unless it is the request's Host or an allowed origin (the address of a proxy in
   * front); and the request must repeat the cookie's CSRF token in the form field or header, which
   * another site can neither read nor set.
   */
  private void checkChange(Request r) {
    if (readOnly) {
      throw new BadRequest(403, "this dashboard is read-only; actions are turned off");
    }
    checkOrigin(r);
    String cookie = r.cookie(CSRF_COOKIE);
    String given = r.header(CSRF_HEADER);
    if (given == null) {
      given = r.form().get(CSRF_FIELD);
    }
    if (cookie == null
        || cookie.length() < 16
        || given == null
        || !MessageDigest.isEqual(
            cookie.getBytes(StandardCharsets.UTF_8), given.getBytes(StandardCharsets.UTF_8))) {
      throw new BadRequest(
          403,
          "missing or wrong CSRF token; reload the page and try again (scripts: send the "
              + CSRF_COOKIE
              + " cookie and the same value in the "
              + CSRF_HEADER
              + " header)");
    }
  }

  /** A browser's cross-site request is refused by its Sec-Fetch-Site and Origin headers. */
  private void checkOrigin(Request r) {
    String site = r.header("Sec-Fetch-Site");
    if (site != null && site.equals("cross-site")) {
      throw new BadRequest(403, "cross-site request refused");
    }
    String origin = r.header("Origin");
    if (origin != null && !sameOrigin(origin, r.header("Host")) && !allowed(origin)) {
      throw new BadRequest(
          403, "request from origin " + Request.shown(origin) + " refused; not this dashboard's");
    }
  }

  private boolean allowed(String origin) {
    String normal = origin(origin);
    return normal != null && allowedOrigins.contains(normal);
  }

  private static boolean sameOrigin(String origin, String host) {
    if (host == null) {
      return false;
    }
    try {
      URI o = URI.create(origin);
      String authority = o.getRawAuthority();
      return authority != null && authority.equalsIgnoreCase(host.strip());
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /**
   * {@code origin} as {@code scheme://host[:port]} in lower case without the scheme's default port,
   * or null when it is not an http or https origin (a path, a query, user info or {@code null}).
   */
  static String origin(String origin) {
    URI u;
    try {
      u = new URI(origin.strip());
    } catch (URISyntaxException e) {
      return null;
    }
    String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
    int defaultPort =
        switch (scheme) {
          case "http" -> 80;
          case "https" -> 443;
          default -> 0;
        };
    if (defaultPort == 0
        || u.getHost() == null
        || u.getRawUserInfo() != null
        || !(u.getRawPath() == null || u.getRawPath().isEmpty())
        || u.getRawQuery() != null
        || u.getRawFragment() != null) {
      return null;
    }
    int port = u.getPort() == defaultPort ? -1 : u.getPort();
    return scheme + "://" + u.getHost().toLowerCase(Locale.ROOT) + (port == -1 ? "" : ":" + port);
  }

  /** The browser's CSRF token: its cookie's, or a new one set on this answer. */
  private String csrfToken(Request r) {
    String token = r.cookie(CSRF_COOKIE);
    if (token != null && token.length() >= 16 && token.matches("[A-Za-z0-9_-]+")) {
      return token;
    }
    byte[] b = new byte[24];
    random.nextBytes(b);
    token = Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    r.exchange
        .getResponseHeaders()
        .add(
            "Set-Cookie",
            CSRF_COOKIE
                + "="
                + token
                + "; Path="
                + (r.base.isEmpty() ? "/" : r.base)
                + "; HttpOnly; SameSite=Strict");
    return token;
  }

  // ---------------------------------------------------------------- answers

  /** A queue's limits and their use, each limit it lacks null; null for a queue without one. */
  private ObjectNode limitsJson(StatsAdmin.LimitsInUse l) {
    if (l == null) {
      return null;
    }
    ObjectNode o = json.createObjectNode();
    o.put("concurrency_limit", l.concurrencyLimit());
    o.put("running", l.running());
    o.put("key_field", l.keyField());
    o.put("key_limit", l.keyLimit());
    o.put("keys_running", l.keysRunning());
    o.put("keys_at_limit", l.keysAtLimit());
    o.put("rate_limit", l.rateLimit());
    o.put("rate_period_ms", l.ratePeriod() == null ? null : l.ratePeriod().toMillis());
    o.put("rate_key_field", l.rateKeyField());
    o.put("starts_in_period", l.startsInPeriod());
    o.put("waiting_for_limits", l.waitingForLimits());
    o.set("busiest_keys", json.valueToTree(l.busiestKeys()));
    return o;
  }

  private ObjectNode overviewJson() {
    Views.Overview view = views.overview();
    ArrayNode queues = json.createArrayNode();
    for (Views.QueueRow q : view.queues()) {
      ObjectNode o = json.valueToTree(q.stats());
      o.put("paused", q.paused());
      o.put("backlog_cap", q.backlogCap());
      o.put("waiting", q.waiting());
      if (q.paused()) {
        o.put("pausedBy", q.info().pausedBy());
        o.set("pausedAt", json.valueToTree(q.info().pausedAt()));
      }
      o.put("liveNodes", q.liveNodes());
      o.put("unworked", q.unworked());
      o.put("handlerFailed5m", q.handlerFailed5m());
      o.put("handlerFailed1h", q.handlerFailed1h());
      o.put("rescued5m", q.rescues().in5m());
      o.put("rescued1h", q.rescues().in1h());
      o.set("completed_per_5m_last_hour", json.valueToTree(q.completed()));
      o.set("limits", limitsJson(q.limits()));
      queues.add(o);
    }
    ObjectNode o = json.createObjectNode();
    o.put("at", view.at().toString());
    o.put("nodesAlive", view.alive());
    o.put("nodesStale", view.cluster().nodes().size() - view.alive());
    o.set("leader", json.valueToTree(view.cluster().leader().orElse(null)));
    o.set("queues", queues);
    return o;
  }

  private void asset(Request r, String path, long start) throws IOException {
    String name = path.substring("/assets/".length());
    try (InputStream in = DashboardHandler.class.getResourceAsStream("assets/" + name)) {
      if (in == null) {
        throw new BadRequest(404, "no asset " + Request.shown(name));
      }
      r.exchange.getResponseHeaders().set("Cache-Control", "max-age=300");
      send(r, 200, ASSETS.get(path), new String(in.readAllBytes(), StandardCharsets.UTF_8), start);
    }
  }

  /**
   * {@code body} as the live part of its page: with "Live" ticked, the page's script fetches the
   * same address every 5 seconds and swaps the part in.
   */
  private static String live(Request r, String body) {
    String query = r.exchange.getRequestURI().getRawQuery();
    String self = r.base + r.path + (query == null ? "" : "?" + query);
    return new Html()
        .raw("<p class=\"live\"><label><input type=\"checkbox\" id=\"live\"> Live (refresh")
        .raw(" every 5 s)</label></p><div id=\"live-part\" data-refresh=\"")
        .text(self)
        .raw("\">")
        .raw(body)
        .raw("</div>")
        .toString();
  }

  private void sendPage(Request r, String title, String body, long start) throws IOException {
    String message = Banner.message(r);
    send(
        r,
        200,
        "text/html; charset=utf-8",
        Html.page(r.base, title, message, readOnly, body),
        start);
  }

  private void sendJson(Request r, int status, Object body, long start) throws IOException {
    send(r, status, "application/json", json.writeValueAsString(body), start);
  }

  private void redirect(Request r, String to, String query) throws IOException {
    String sep = to.contains("?") ? "&" : "?";
    r.exchange
        .getResponseHeaders()
        .set("Location", r.base + to + (query == null ? "" : sep + query));
    r.exchange.sendResponseHeaders(303, -1);
  }

  private void error(Request r, boolean api, int status, String text, long start)
      throws IOException {
    String message = Secrets.mask(text);
    if (api) {
      ObjectNode o = json.createObjectNode();
      o.put("status", status).put("error", message);
      sendJson(r, status, o, start);
    } else {
      String title = status == 401 ? "Authentication required" : "Error " + status;
      String body = "<p class=\"error\" id=\"error\">" + Html.esc(message) + "</p>";
      if (status == 401 && auth instanceof TokenAuth) {
        body += Pages.signInForm(r.base, r.path.equals(SIGN_IN) ? "/" : r.path);
      }
      send(
          r,
          status,
          "text/html; charset=utf-8",
          Html.page(r.base, title, null, readOnly, body),
          start);
    }
  }

  private static void send(Request r, int status, String type, String body, long start)
      throws IOException {
    HttpExchange ex = r.exchange;
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type);
    ex.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
    ex.getResponseHeaders().set("X-Frame-Options", "DENY");
    ex.getResponseHeaders().set("Referrer-Policy", "same-origin");
    ex.getResponseHeaders()
        .set(
            "Content-Security-Policy",
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
                + " frame-ancestors 'none'; form-action 'self'");
    ex.getResponseHeaders()
        .set(
            "Server-Timing",
            String.format(Locale.ROOT, "app;dur=%.1f", (System.nanoTime() - start) / 1e6));
    boolean head = ex.getRequestMethod().equals("HEAD");
    ex.sendResponseHeaders(status, head ? -1 : bytes.length);
    if (!head) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(bytes);
      }
    }
  }
}
