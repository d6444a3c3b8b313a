package dev.baton.dashboard;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.Job;
import dev.baton.JobError;
import dev.baton.JobState;
import dev.baton.LeaderInfo;
import dev.baton.NodeInfo;
import dev.baton.QueueInfo;
import dev.baton.admin.JobAdmin;
import dev.baton.admin.JobBrowser;
import dev.baton.admin.JobWorkflow;
import dev.baton.admin.PeriodicAdmin;
import dev.baton.admin.StatsAdmin;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The HTML pages: each a method from the data of {@link Views} to markup, all values escaped. */
final class Pages {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final String base;
  private final String csrf;
  private final boolean readOnly;

  Pages(String base, String csrf, boolean readOnly) {
    this.base = base;
    this.csrf = csrf;
    this.readOnly = readOnly;
  }

  // ---------------------------------------------------------------- overview

  /** The cluster strip and the queue table: what the overview polls and swaps in. */
  String queues(Views.Overview o) {
    Html h = new Html();
    Instant now = o.at();
    h.raw("<p class=\"muted\">As of ").text(Html.time(now)).raw("</p>");
    cluster(h, o);
    List<Views.QueueRow> rows = o.queues();
    if (rows.isEmpty()) {
      return h.raw("<p>No queues yet: nothing waiting, running or finished lately.</p>").toString();
    }
    long unworked = rows.stream().filter(Views.QueueRow::unworked).count();
    if (unworked > 0) {
      h.raw("<p class=\"alert bad\" id=\"unworked\">")
          .text(
              unworked
                  + (unworked == 1 ? " queue has" : " queues have")
                  + " jobs waiting and no live node working it.")
          .raw("</p>");
    }
    h.raw("<div class=\"scroll\"><table class=\"queues\"><thead><tr><th>Queue</th><th>State</th>")
        .raw("<th title=\"Live nodes working the queue\">Nodes</th><th>Available</th>")
        .raw("<th>Oldest available</th><th>Running</th><th>Scheduled</th><th>Retryable</th>")
        .raw("<th>Discarded</th><th title=\"Handler failures / attempts that ended\">")
        .raw("Failed 5 min</th><th>Failed 1 h</th>")
        .raw("<th title=\"Attempts given back: node gone or lease lost\">Rescued 1 h</th>")
        .raw("<th title=\"Jobs waiting (available, scheduled, retryable) / backlog cap\">")
        .raw("Waiting / cap</th>")
        .raw("<th title=\"Cluster-wide limits and their use: running / limit, per key, starts /")
        .raw(" rate\">Limits</th>")
        .raw("<th>Completed per 5 min, last hour</th><th></th></tr></thead><tbody>");
    long[] totals = new long[6];
    // One scale for every queue's bars, so that a busy queue's bars stand taller than a quiet
    // one's.
    long scale =
        rows.stream()
            .flatMap(r -> r.completed().stream())
            .mapToLong(Long::longValue)
            .max()
            .orElse(1);
    for (Views.QueueRow r : rows) {
      StatsAdmin.QueueStats s = r.stats();
      String q = Html.url(r.name());
      h.raw("<tr data-queue=\"").text(r.name()).raw(r.unworked() ? "\" class=\"flag\">" : "\">");
      h.raw("<td><a href=\"").text(base + "/jobs?queue=" + q).raw("\">").text(r.name());
      h.raw("</a></td>");
      if (r.paused()) {
        QueueInfo info = r.info();
        h.raw("<td class=\"paused\">paused");
        h.raw("<div class=\"muted small\" data-paused-by=\"").text(info.pausedBy()).raw("\">");
        h.text("by " + (info.pausedBy() == null ? "?" : info.pausedBy()));
        if (info.pausedAt() != null) {
          h.text(", " + Html.between(info.pausedAt(), now) + " ago");
          h.raw(" <time>").text(Html.time(info.pausedAt())).raw("</time>");
        }
        h.raw("</div></td>");
      } else {
        h.raw("<td>active</td>");
      }
      h.raw(
          r.unworked() ? "<td class=\"num bad\" data-nodes=\"0\">none live" : "<td class=\"num\">");
      h.raw(r.unworked() ? "" : "" + r.liveNodes()).raw("</td>");
      count(h, s.available(), q, "available");
      h.raw("<td class=\"num ");
      if (s.available() == 0) {
        h.raw("\">-");
      } else {
        double age = s.oldestAvailableAgeSeconds();
        h.raw(level(age >= Views.OLDEST_BAD.toSeconds(), age >= Views.OLDEST_WARN.toSeconds()));
        h.raw("\" data-age=\"").text((long) age).raw("\">").text(Html.age(age));
      }
      h.raw("</td>");
      count(h, s.running(), q, "running");
      count(h, s.scheduled(), q, "scheduled");
      count(h, s.retryable(), q, "retryable");
      count(h, s.discarded(), q, "discarded");
      share(h, r.handlerFailed5m(), s.completed5m(), "5m");
      share(h, r.handlerFailed1h(), s.completed1h(), "1h");
      h.raw("<td class=\"num\">");
      if (r.rescues().in1h() > 0) {
        h.raw("<a class=\"warn\" href=\"").text(base + "/failures?queue=" + q).raw("\">");
        h.text(r.rescues().in1h()).raw("</a>");
      } else {
        h.raw("0");
      }
      h.raw("</td>");
      cap(h, r);
      limits(h, r.limits());
      h.raw("<td>").raw(chart(r.completed(), scale)).raw("</td><td>");
      if (!readOnly) {
        String path = base + "/queues/" + q + (r.paused() ? "/resume" : "/pause");
        h.button(path, r.paused() ? "Resume" : "Pause", csrf, null);
        capForm(h, r);
        limitForms(h, r.name(), r.limits());
      }
      h.raw("</td></tr>");
      totals[0] += s.available();
      totals[1] += s.running();
      totals[2] += s.scheduled();
      totals[3] += s.retryable();
      totals[4] += s.discarded();
      totals[5] += r.rescues().in1h();
    }
    h.raw("</tbody><tfoot><tr><th>All</th><th></th><th class=\"num\">").text(o.alive());
    h.raw("</th><th class=\"num\">").text(totals[0]).raw("</th><th></th>");
    for (int i = 1; i < 5; i++) {
      h.raw("<th class=\"num\">").text(totals[i]).raw("</th>");
    }
    h.raw("<th></th><th></th><th class=\"num\">").text(totals[5]);
    return h.raw("</th><th></th><th></th><th></th><th></th></tr></tfoot></table></div>").toString();
  }

  /**
   * A queue's waiting jobs against its backlog cap: a warning from {@link Views#CAP_WARN} of the
   * cap, bad at the cap (an enqueue is refused); "-" for a queue without a cap.
   */
  private static void cap(Html h, Views.QueueRow r) {
    Integer cap = r.backlogCap();
    if (cap == null) {
      h.raw("<td class=\"num\" data-cap=\"\">-</td>");
      return;
    }
    long waiting = r.waiting();
    h.raw("<td class=\"num ")
        .raw(level(waiting >= cap, waiting >= cap * Views.CAP_WARN))
        .raw("\" data-cap=\"")
        .text(cap)
        .raw("\" data-waiting=\"")
        .text(waiting)
        .raw("\" title=\"")
        .text(waiting >= cap ? "At its cap: enqueues are refused" : "Under its cap")
        .raw("\">")
        .text(String.format(Locale.ROOT, "%,d / %,d", waiting, cap))
        .raw("</td>");
  }

  /**
   * A queue's limits, one line each with its use: running against the concurrency limit, the keys
   * at the limit per key, the starts of the rate's window against the rate (each a warning once
   * fully used), and the jobs waiting for them; "-" for a queue without a limit.
   */
  private static void limits(Html h, StatsAdmin.LimitsInUse l) {
    if (l == null) {
      h.raw("<td class=\"limits\" data-limits=\"\">-</td>");
      return;
    }
    h.raw("<td class=\"limits\" data-limits=\"").text(l.queue()).raw("\">");
    if (l.concurrencyLimit() != null) {
      int limit = l.concurrencyLimit();
      h.raw("<div class=\"").raw(level(false, l.running() >= limit));
      h.raw("\" data-limit=\"concurrency\" data-running=\"").text(l.running());
      h.raw("\" data-value=\"").text(limit).raw("\" title=\"Running across the cluster / limit\">");
      h.text(String.format(Locale.ROOT, "%,d / %,d running", l.running(), limit)).raw("</div>");
    }
    if (l.keyLimit() != null) {
      h.raw("<div class=\"").raw(level(false, l.keysAtLimit() > 0));
      h.raw("\" data-limit=\"key\" data-field=\"").text(l.keyField());
      h.raw("\" data-value=\"").text(l.keyLimit()).raw("\" data-full=\"").text(l.keysAtLimit());
      h.raw("\" title=\"Most running per key; keys at that limit / keys running\">");
      h.text(l.keyField() + ": " + l.keyLimit() + " per key, ");
      h.text(l.keysAtLimit() + " of " + l.keysRunning() + " keys full").raw("</div>");
      if (!l.busiestKeys().isEmpty()) {
        h.raw("<div class=\"muted small\" data-busiest=\"\">busiest: ");
        for (int i = 0; i < l.busiestKeys().size(); i++) {
          StatsAdmin.KeyRunning k = l.busiestKeys().get(i);
          h.text((i == 0 ? "" : ", ") + (k.key().isEmpty() ? "(none)" : k.key()) + " ");
          h.text(k.running());
        }
        h.text(l.keysRunning() > l.busiestKeys().size() ? ", …" : "").raw("</div>");
      }
    }
    if (l.rateLimit() != null) {
      int rate = l.rateLimit();
      h.raw("<div class=\"").raw(level(false, l.startsInPeriod() >= rate));
      h.raw("\" data-limit=\"rate\" data-starts=\"").text(l.startsInPeriod());
      h.raw("\" data-value=\"").text(rate).raw("\" data-period=\"");
      h.text(Html.period(l.ratePeriod())).raw("\" title=\"Starts in the last period / rate\">");
      h.text(String.format(Locale.ROOT, "%,d / %,d starts per ", l.startsInPeriod(), rate));
      h.text(Html.period(l.ratePeriod()));
      if (l.rateKeyField() != null) {
        h.text(" per " + l.rateKeyField() + " (busiest)");
      }
      h.raw("</div>");
    }
    h.raw("<div class=\"muted small\" data-waiting-for-limits=\"").text(l.waitingForLimits());
    h.raw("\">").text(String.format(Locale.ROOT, "%,d waiting for them", l.waitingForLimits()));
    h.raw("</div></td>");
  }

  /**
   * The forms that set a queue's limits (the values checked by the server, so that a wrong one gets
   * its message), and the buttons that remove the limits it has; folded under "Limits".
   */
  private void limitForms(Html h, String queue, StatsAdmin.LimitsInUse l) {
    String path = base + "/queues/" + Html.url(queue);
    h.raw("<details class=\"limits\"><summary>Limits</summary>");
    form(h, path + "/limit", "Set limit");
    input(h, "limit", "running", queue + ": most running across the cluster", 7);
    value(h, l == null ? null : l.concurrencyLimit());
    h.raw("<button type=\"submit\">Set limit</button></form>");
    if (l != null && l.concurrencyLimit() != null) {
      h.button(path + "/unlimit", "Remove limit", csrf, "Remove the limit of " + queue + "?");
    }
    form(h, path + "/keylimit", "Set per-key limit");
    input(h, "key_field", "args field", queue + ": args field of the key", 9);
    value(h, l == null ? null : l.keyField());
    input(h, "key_limit", "per key", queue + ": most running per key", 5);
    value(h, l == null ? null : l.keyLimit());
    h.raw("<button type=\"submit\">Set per-key limit</button></form>");
    if (l != null && l.keyLimit() != null) {
      h.button(
          path + "/unkeylimit",
          "Remove per-key limit",
          csrf,
          "Remove the limit per key of " + queue + "?");
    }
    form(h, path + "/rate", "Set rate");
    input(h, "rate", "starts", queue + ": most starts per period", 6);
    value(h, l == null ? null : l.rateLimit());
    input(h, "period", "per (1s)", queue + ": period of the rate, such as 1s or 5m", 5);
    value(h, l == null || l.ratePeriod() == null ? null : Html.period(l.ratePeriod()));
    input(h, "rate_key_field", "per key field", queue + ": args field of the rate's key", 9);
    value(h, l == null ? null : l.rateKeyField());
    h.raw("<button type=\"submit\">Set rate</button></form>");
    if (l != null && l.rateLimit() != null) {
      h.button(path + "/unrate", "Remove rate", csrf, "Remove the rate limit of " + queue + "?");
    }
    h.raw("</details>");
  }

  private void form(Html h, String action, String label) {
    h.raw("<form class=\"inline limit\" method=\"post\" action=\"").text(action);
    h.raw("\" data-form=\"").text(label).raw("\"><input type=\"hidden\" name=\"csrf\" value=\"");
    h.text(csrf).raw("\">");
  }

  private static void input(Html h, String name, String placeholder, String label, int size) {
    h.raw("<input name=\"").raw(name).raw("\" size=\"").text(size).raw("\" aria-label=\"");
    h.text(label).raw("\" placeholder=\"").text(placeholder).raw("\" value=\"");
  }

  private static void value(Html h, Object v) {
    h.text(v == null ? "" : v).raw("\">");
  }

  /**
   * The form that sets a queue's backlog cap (the number checked by the server, so that a wrong one
   * gets its message), and the button that removes it.
   */
  private void capForm(Html h, Views.QueueRow r) {
    String path = base + "/queues/" + Html.url(r.name());
    h.raw("<form class=\"inline cap\" method=\"post\" action=\"").text(path + "/cap");
    h.raw("\"><input type=\"hidden\" name=\"csrf\" value=\"").text(csrf);
    h.raw("\"><input name=\"cap\" inputmode=\"numeric\" size=\"9\" aria-label=\"Backlog cap of ");
    h.text(r.name()).raw("\" placeholder=\"cap\" value=\"");
    h.text(r.backlogCap() == null ? "" : r.backlogCap());
    h.raw("\"><button type=\"submit\">Set cap</button></form>");
    if (r.backlogCap() != null) {
      h.button(path + "/uncap", "Remove cap", csrf, "Remove the backlog cap of " + r.name() + "?");
    }
  }

  /** The cluster strip: live and stale nodes and the leader. */
  private void cluster(Html h, Views.Overview o) {
    long alive = o.alive();
    long stale = o.cluster().nodes().size() - alive;
    LeaderInfo l = o.cluster().leader().orElse(null);
    boolean leading = l != null && !l.expiresAt().isBefore(o.at());
    h.raw("<p class=\"cluster\" id=\"cluster\"><a href=\"").text(base + "/nodes").raw("\">");
    h.raw("<span class=\"").raw(alive == 0 ? "bad" : "ok").raw("\" data-alive=\"").text(alive);
    h.raw("\">").text(alive + (alive == 1 ? " node alive" : " nodes alive")).raw("</span>");
    if (stale > 0) {
      h.raw(", <span class=\"warn\" data-stale=\"").text(stale).raw("\">").text(stale + " stale");
      h.raw("</span>").text(" (no heartbeat for " + Views.STALE_AFTER.toSeconds() + " s)");
    }
    h.raw("</a> · ");
    if (leading) {
      h.raw("<span class=\"ok\">").text("leader " + l.nodeId()).raw("</span>");
    } else {
      h.raw("<span class=\"bad\">")
          .text(l == null ? "no leader was ever elected" : "no leader (lease of " + l.nodeId())
          .text(l == null ? "" : " expired " + Html.between(l.expiresAt(), o.at()) + " ago)")
          .raw("</span>");
    }
    h.raw("</p>");
  }

  private static String level(boolean bad, boolean warn) {
    return bad ? "bad" : warn ? "warn" : "ok";
  }

  /**
   * A failure share with its sample, e.g. {@code 12.5% of 16}: handler failures over attempts that
   * ended (completed or failed by the handler); coloured from {@link Views#MIN_SAMPLE} attempts on.
   */
  private static void share(Html h, long failed, long completed, String window) {
    long ended = failed + completed;
    double ratio = ended == 0 ? 0 : (double) failed / ended;
    String cls =
        ended < Views.MIN_SAMPLE
            ? "few"
            : level(ratio >= Views.FAILURE_BAD, ratio >= Views.FAILURE_WARN);
    h.raw("<td class=\"num ").raw(cls).raw("\" data-share=\"").text(window).raw("\">");
    h.text(ended == 0 ? "-" : Html.share(ratio, ended) + " of " + ended).raw("</td>");
  }

  private void count(Html h, long n, String queue, String state) {
    h.raw("<td class=\"num\" data-state=\"").text(state).raw("\">");
    if (n == 0) {
      h.raw("0");
    } else {
      h.raw("<a href=\"").text(base + "/jobs?queue=" + queue + "&state=" + state).raw("\">");
      h.text(n).raw("</a>");
    }
    h.raw("</td>");
  }

  /**
   * Bars of completions per bucket, oldest left, as inline SVG; each bar titled. {@code scale} is
   * the count of a full-height bar, shared by every queue's chart.
   */
  static String chart(List<Long> counts, long scale) {
    int w = 6;
    int gap = 2;
    int height = 28;
    long max = Math.max(1, scale);
    long total = counts.stream().mapToLong(Long::longValue).sum();
    Html h = new Html();
    h.raw("<svg class=\"chart\" width=\"")
        .text(counts.size() * (w + gap))
        .raw("\" height=\"")
        .text(height)
        .raw("\" role=\"img\" aria-label=\"")
        .text(total + " completions in the last hour")
        .raw("\">");
    for (int i = 0; i < counts.size(); i++) {
      long n = counts.get(i);
      int bar = n == 0 ? 1 : (int) Math.max(2, Math.round((double) n / max * height));
      int minutesAgo = (counts.size() - i) * (int) Views.CHART_BUCKET.toMinutes();
      h.raw("<rect x=\"")
          .text(i * (w + gap))
          .raw("\" y=\"")
          .text(height - bar)
          .raw("\" width=\"")
          .text(w)
          .raw("\" height=\"")
          .text(bar)
          .raw(n == 0 ? "\" class=\"zero\">" : "\">")
          .raw("<title>")
          .text(n + " completed, " + minutesAgo + " to " + (minutesAgo - 5) + " min ago")
          .raw("</title></rect>");
    }
    return h.raw("</svg>").text(" " + total).toString();
  }

  String overview(Views.Overview o) {
    return new Html()
        .raw("<div id=\"queues\" data-refresh=\"")
        .text(base + "/fragment/queues")
        .raw("\">")
        .raw(queues(o))
        .raw("</div><p class=\"muted\">Refreshes every 5 seconds. Failed = attempts whose")
        .raw(" handler failed / attempts that ended (completed or failed), of that many;")
        .raw(" rescues (node gone, lease lost) are counted apart. Coloured from ")
        .text(Views.MIN_SAMPLE + " attempts: ")
        .text(Math.round(Views.FAILURE_WARN * 100) + "% warns, ")
        .text(Math.round(Views.FAILURE_BAD * 100) + "% is bad; the oldest available job warns ")
        .text("from " + Views.OLDEST_WARN.toMinutes() + " min, is bad from ")
        .text(Views.OLDEST_BAD.toMinutes() + " min.")
        .raw("</p>")
        .toString();
  }

  // ---------------------------------------------------------------- jobs

  // How long the latest attempt ran: until now while running, until the end when final.
  private static String ran(Job j, Instant now) {
    if (j.attemptedAt() == null) {
      return "-";
    }
    if (j.state() == JobState.RUNNING) {
      return Html.between(j.attemptedAt(), now);
    }
    return j.finalizedAt() == null || j.finalizedAt().isBefore(j.attemptedAt())
        ? "-"
        : Html.between(j.attemptedAt(), j.finalizedAt());
  }

  /** The job's last error entry: its class (or rescue), message and root cause, cut short. */
  private static void lastError(Html h, Job j) {
    if (j.errors().isEmpty()) {
      h.raw("-");
      return;
    }
    JobError e = j.errors().get(j.errors().size() - 1);
    h.raw("<span class=\"error-class\">").text(e.error()).raw("</span>");
    if (e.isRescue()) {
      h.raw(" <span class=\"badge\">rescue</span>");
    }
    if (e.message() != null) {
      h.raw("<div>").text(Html.cut(e.message(), 120)).raw("</div>");
    }
    String root = e.rootCause();
    if (root != null) {
      h.raw("<div class=\"muted\">caused by ").text(Html.cut(root, 120)).raw("</div>");
    }
  }

  /**
   * What the job list offers besides its page: a count per state (null where the filter would make
   * counting read more than the cap's rows), the known queue names for the queue picker, and the
   * known kinds (of the queue filtered on, else of any) for the kind picker.
   */
  record ListAids(Map<JobState, Long> counts, List<String> queues, List<String> kinds) {}

  String jobs(
      JobBrowser.Filter f,
      int limit,
      JobBrowser.Page page,
      boolean firstPage,
      Instant now,
      ListAids aids) {
    Html h = new Html();
    h.raw("<nav class=\"tabs\" id=\"state-tabs\">");
    tab(h, f.withState(null), limit, "any", null, f.state() == null);
    for (JobState s : JobState.values()) {
      tab(h, f.withState(s), limit, s.dbName(), aids.counts().get(s), s == f.state());
    }
    h.raw("</nav><datalist id=\"known-queues\">");
    for (String q : aids.queues()) {
      h.raw("<option value=\"").text(q).raw("\">");
    }
    h.raw("</datalist><datalist id=\"known-kinds\">");
    for (String k : aids.kinds()) {
      h.raw("<option value=\"").text(k).raw("\">");
    }
    h.raw("</datalist>");
    h.raw("<form class=\"filter\" method=\"get\" action=\"").text(base + "/jobs").raw("\">");
    h.raw("<label>State <select name=\"state\"><option value=\"\">any</option>");
    for (JobState s : JobState.values()) {
      h.raw("<option").raw(s == f.state() ? " selected" : "").raw(">").text(s.dbName());
      h.raw("</option>");
    }
    h.raw("</select></label>");
    h.raw("<label>Queue <input name=\"queue\" list=\"known-queues\" value=\"").text(f.queue());
    h.raw("\" size=\"14\"></label>");
    h.raw("<label>Kind <input name=\"kind\" list=\"known-kinds\" value=\"").text(f.kind());
    h.raw("\" size=\"14\"></label>");
    field(h, "Id", "id", f.id());
    field(h, "Idempotency key", "key", f.idempotencyKey());
    h.raw("<label title=\"Jobs whose args contain this JSON object\">Args contain <input")
        .raw(" name=\"args\" placeholder=\"{&quot;customer_id&quot;: 42}\" value=\"")
        .text(f.args())
        .raw("\" size=\"22\"></label>");
    h.raw("<label title=\"Jobs whose metadata contain this JSON object\">Metadata contain <input")
        .raw(" name=\"metadata\" value=\"")
        .text(f.metadata())
        .raw("\" size=\"16\"></label>");
    h.raw("<input type=\"hidden\" name=\"limit\" value=\"").text(limit).raw("\">");
    h.raw("<button type=\"submit\">Filter</button></form>");
    h.raw("<p class=\"muted\">").text(orderNote(f.state())).raw("</p>");
    if (page.jobs().isEmpty() && !page.scanLimited()) {
      h.raw("<p id=\"no-jobs\">No jobs match.</p>");
    } else if (!page.jobs().isEmpty()) {
      boolean select = !readOnly;
      if (select) {
        // One form around the table: a checkbox per job, the actions below it.
        h.raw("<form id=\"selection\" method=\"post\" action=\"").text(base + "/jobs/bulk");
        h.raw("\" data-confirm=\"Apply this action to the selected jobs?\">");
        h.raw("<input type=\"hidden\" name=\"csrf\" value=\"").text(csrf).raw("\">");
        hiddenFilter(h, f);
      }
      h.raw("<div class=\"scroll\"><table class=\"jobs\"><thead><tr>");
      if (select) {
        h.raw("<th><input type=\"checkbox\" id=\"select-all\" title=\"Select all on this page\">");
        h.raw("</th>");
      }
      h.raw("<th>Id</th><th>Queue</th>")
          .raw("<th>Kind</th><th>State</th><th>Attempt</th><th>")
          .text(timeLabel(f.state()))
          .raw("</th><th>Node</th><th title=\"Run time of the latest attempt\">Ran</th>")
          .raw("<th>Last error</th><th>Args</th></tr></thead><tbody>");
      for (Job j : page.jobs()) {
        h.raw("<tr data-id=\"").text(j.id()).raw("\">");
        if (select) {
          h.raw("<td><input type=\"checkbox\" name=\"ids\" value=\"").text(j.id()).raw("\"></td>");
        }
        h.raw("<td><a href=\"");
        h.text(base + "/jobs/" + j.id()).raw("\">").text(j.id()).raw("</a></td><td>");
        h.text(j.queue()).raw("</td><td>").text(j.kind()).raw("</td><td class=\"state ");
        h.text(j.state().dbName()).raw("\">").text(j.state().dbName()).raw("</td><td>");
        h.text(j.attempt() + "/" + j.maxAttempts()).raw("</td><td>");
        h.text(Html.time(sortTime(f.state(), j))).raw("</td><td>");
        h.text(j.attemptedBy() == null ? "-" : j.attemptedBy()).raw("</td><td class=\"num\">");
        h.text(ran(j, now)).raw("</td><td class=\"error-cell\">");
        lastError(h, j);
        h.raw("</td><td class=\"args\">");
        h.text(Html.cut(j.args().toString(), PREVIEW)).raw("</td></tr>");
      }
      h.raw("</tbody></table></div>");
      if (select) {
        h.raw("<p class=\"bulk\">Selected jobs: ");
        for (Views.BulkAction a : Views.BulkAction.values()) {
          h.raw("<button type=\"submit\" name=\"action\" value=\"").text(a.param).raw("\">");
          h.text(a.label).raw("</button> ");
        }
        h.raw("</p></form>");
      }
    }
    if (page.scanLimited()) {
      // The filter's queue or kind is checked on the rows read, at most a budget of them a page:
      // say how far this page searched, and let the person search on from there.
      JobBrowser.SearchedUpTo s = page.searchedUpTo();
      boolean descending = f.state() == null || f.state().isFinal();
      h.raw("<p id=\"scan-limited\" class=\"muted\">")
          .text(page.jobs().isEmpty() ? "No matches" : "No more matches")
          .text(String.format(Locale.ROOT, " among the %,d jobs searched, ", s.rowsRead()))
          .text((descending ? "back to " : "up to ") + Html.time(s.lastAt()))
          .text(" (job " + s.lastId() + "); ")
          .raw("<a id=\"next\" href=\"")
          .text(base + "/jobs?" + query(f, limit, page.next()))
          .raw("\">")
          .text(descending ? "search older →" : "search later →")
          .raw("</a></p>");
    }
    h.raw("<p class=\"pager\">");
    if (!firstPage) {
      h.raw("<a href=\"").text(base + "/jobs?" + query(f, limit, null)).raw("\">First page</a> ");
    }
    if (page.next() != null && !page.scanLimited()) {
      h.raw("<a id=\"next\" href=\"").text(base + "/jobs?" + query(f, limit, page.next()));
      h.raw("\">Next page</a>");
    }
    h.raw("</p>");
    if (!readOnly && f.state() != null) {
      // Only the actions that can change a job in this state (retrying an available job, say,
      // changes nothing: it is waiting to run already).
      h.raw("<p class=\"bulk\">All jobs matching this filter: ");
      for (Views.BulkAction a : Views.BulkAction.values()) {
        if (a.states.contains(f.state())) {
          h.raw("<a id=\"bulk-").text(a.param).raw("\" href=\"");
          h.text(base + "/jobs/bulk?action=" + a.param + "&" + query(f, limit, null));
          h.raw("\">").text(a.label).raw("…</a> ");
        }
      }
      h.raw("</p>");
    }
    return h.toString();
  }

  private void tab(
      Html h, JobBrowser.Filter f, int limit, String label, Long count, boolean current) {
    h.raw("<a href=\"").text(base + "/jobs?" + query(f, limit, null)).raw("\"");
    h.raw(current ? " class=\"current\" aria-current=\"page\"" : "").raw(">").text(label);
    if (count != null) {
      h.raw(" <span class=\"count\" data-count=\"").text(label).raw("\">");
      h.text(
          count > Views.TAB_COUNT_CAP
              ? String.format(Locale.ROOT, "%,d+", Views.TAB_COUNT_CAP)
              : String.format(Locale.ROOT, "%,d", count));
      h.raw("</span>");
    }
    h.raw("</a>");
  }

  private static void field(Html h, String label, String name, Object value) {
    h.raw("<label>").text(label).raw(" <input name=\"").text(name).raw("\" value=\"");
    h.text(value).raw("\" size=\"14\"></label>");
  }

  static String orderNote(JobState state) {
    if (state == null) {
      return "Newest first.";
    }
    return switch (state) {
      case COMPLETED, CANCELLED, DISCARDED -> "Most recently finalized first.";
      case SCHEDULED, RETRYABLE -> "Next due first.";
      case AVAILABLE -> "In the order workers claim them: by queue, priority, due time.";
      case RUNNING -> "Latest attempt first.";
      case PENDING -> "Newest first.";
    };
  }

  private static String timeLabel(JobState state) {
    if (state == null) {
      return "Created";
    }
    return switch (state) {
      case COMPLETED, CANCELLED, DISCARDED -> "Finalized";
      case SCHEDULED, RETRYABLE, AVAILABLE -> "Due";
      case RUNNING -> "Attempted";
      case PENDING -> "Created";
    };
  }

  private static Instant sortTime(JobState state, Job j) {
    if (state == null) {
      return j.createdAt();
    }
    return switch (state) {
      case COMPLETED, CANCELLED, DISCARDED -> j.finalizedAt();
      case SCHEDULED, RETRYABLE, AVAILABLE -> j.scheduledAt();
      case RUNNING -> j.attemptedAt();
      case PENDING -> j.createdAt();
    };
  }

  /** The query string of a filter, a page size and a cursor (null: none). */
  static String query(JobBrowser.Filter f, int limit, String after) {
    List<String> parts = new ArrayList<>();
    if (f.state() != null) {
      parts.add("state=" + f.state().dbName());
    }
    if (f.queue() != null) {
      parts.add("queue=" + Html.url(f.queue()));
    }
    if (f.kind() != null) {
      parts.add("kind=" + Html.url(f.kind()));
    }
    if (f.id() != null) {
      parts.add("id=" + f.id());
    }
    if (f.idempotencyKey() != null) {
      parts.add("key=" + Html.url(f.idempotencyKey()));
    }
    if (f.args() != null) {
      parts.add("args=" + Html.url(f.args()));
    }
    if (f.metadata() != null) {
      parts.add("metadata=" + Html.url(f.metadata()));
    }
    parts.add("limit=" + limit);
    if (after != null) {
      parts.add("after=" + Html.url(after));
    }
    return String.join("&", parts);
  }

  private static void hiddenFilter(Html h, JobBrowser.Filter f) {
    String[][] fields = {
      {"state", f.state() == null ? null : f.state().dbName()},
      {"queue", f.queue()},
      {"kind", f.kind()},
      {"key", f.idempotencyKey()},
      {"args", f.args() == null ? null : f.args().toString()},
      {"metadata", f.metadata() == null ? null : f.metadata().toString()}
    };
    for (String[] field : fields) {
      if (field[1] != null) {
        h.raw("<input type=\"hidden\" name=\"").text(field[0]).raw("\" value=\"");
        h.text(field[1]).raw("\">");
      }
    }
  }

  String bulkConfirm(Views.BulkAction action, JobBrowser.Filter f, long count) {
    Html h = new Html();
    String what = action.label;
    h.raw("<p id=\"bulk-count\">");
    if (count > Views.MAX_BULK) {
      h.text("More than " + Views.MAX_BULK + " jobs match; this action takes the first ");
      h.text(Views.MAX_BULK + " (submit again for the rest).");
    } else {
      h.text(count + (count == 1 ? " job matches" : " jobs match") + " this filter.");
    }
    h.raw("</p><p class=\"muted\">").text(orderNote(f.state())).raw("</p>");
    if (count == 0) {
      return h.raw("<p>Nothing to do.</p>").toString();
    }
    List<String> hidden = new ArrayList<>(List.of("action", action.param, "expected", "" + count));
    if (f.state() != null) {
      hidden.addAll(List.of("state", f.state().dbName()));
    }
    if (f.queue() != null) {
      hidden.addAll(List.of("queue", f.queue()));
    }
    if (f.kind() != null) {
      hidden.addAll(List.of("kind", f.kind()));
    }
    if (f.id() != null) {
      hidden.addAll(List.of("id", "" + f.id()));
    }
    if (f.idempotencyKey() != null) {
      hidden.addAll(List.of("key", f.idempotencyKey()));
    }
    if (f.args() != null) {
      hidden.addAll(List.of("args", f.args().toString()));
    }
    if (f.metadata() != null) {
      hidden.addAll(List.of("metadata", f.metadata().toString()));
    }
    h.button(
        base + "/jobs/bulk",
        what + " " + Math.min(count, Views.MAX_BULK) + " jobs",
        csrf,
        null,
        hidden.toArray(String[]::new));
    return h.toString();
  }

  // ---------------------------------------------------------------- job detail

  String job(Job j, JobAdmin.Uniqueness unique, Views.JobFlow flow, Instant now) {
    Html h = new Html();
    h.raw("<dl class=\"fields\">");
    dt(h, "State", j.state().dbName());
    dt(h, "Queue", j.queue());
    dt(h, "Kind", j.kind());
    dt(h, "Priority", j.priority());
    long rescues = j.errors().stream().filter(Pages::isRescue).count();
    // A rescue gives its attempt back (the handler did not fail), so the count can be below the
    // attempts the list shows: say how many were rescued.
    dt(
        h,
        "Attempt",
        j.attempt()
            + " of "
            + j.maxAttempts()
            + (rescues == 0 ? "" : ", " + rescues + " rescued (not counted)"));
    if (!j.errors().isEmpty()) {
      // The last error and its root cause at the top: what an operator opens the page for.
      JobError e = j.errors().get(j.errors().size() - 1);
      h.raw("<dt>Last error</dt><dd id=\"last-error\"><span class=\"error-class\">");
      h.text(e.error())
          .raw("</span>")
          .raw(e.isRescue() ? " <span class=\"badge\">rescue</span>" : "");
      h.raw(" ").text(e.message());
      if (e.rootCause() != null) {
        h.raw("<div class=\"root-cause\">caused by ").text(e.rootCause()).raw("</div>");
      }
      h.raw("</dd>");
    }
    dt(h, "Fence", j.fence());
    // Only a running job is on a node; a finished or waiting one names where it last ran.
    boolean running = j.state() == JobState.RUNNING;
    dt(h, "Node", running && j.attemptedBy() != null ? j.attemptedBy() : "-");
    if (!running && j.attemptedBy() != null) {
      JobError last = j.errors().isEmpty() ? null : j.errors().get(j.errors().size() - 1);
      dt(
          h,
          "Last ran on",
          j.attemptedBy()
              + (last != null && isRescue(last) ? " (rescued from it: " + last.error() + ")" : ""));
    }
    dt(h, "Idempotency key", j.idempotencyKey() == null ? "-" : j.idempotencyKey());
    uniqueness(h, j, unique);
    dt(h, "Scheduled at", Html.time(j.scheduledAt()));
    dt(h, "Lease expires", Html.time(j.leaseExpiresAt()));
    dt(h, "Deadline", Html.time(j.deadlineAt()));
    h.raw("</dl>");
    if (!readOnly) {
      h.raw("<div class=\"actions\">");
      String p = base + "/jobs/" + j.id();
      JobState s = j.state();
      if (s == JobState.SCHEDULED || s == JobState.RETRYABLE) {
        h.button(p + "/run", "Run now", csrf, null);
      }
      if (s != JobState.RUNNING && s != JobState.AVAILABLE && s != JobState.PENDING) {
        h.button(p + "/retry", "Retry", csrf, null);
      }
      if (!s.isFinal()) {
        h.button(p + "/cancel", "Cancel", csrf, "Cancel job " + j.id() + "?");
      }
      if (s != JobState.RUNNING) {
        h.button(p + "/delete", "Delete", csrf, "Delete job " + j.id() + " and its history?");
      }
      h.raw("</div>");
    }
    if (!flow.isEmpty()) {
      workflow(h, flow);
    }
    h.raw("<h2>Args</h2><pre id=\"args\" class=\"json\">").text(pretty(j.args())).raw("</pre>");
    h.raw("<h2>Metadata</h2><pre id=\"metadata\" class=\"json\">").text(pretty(j.metadata()));
    h.raw("</pre><h2>Attempts</h2>");
    if (j.errors().isEmpty()) {
      h.raw("<p>No failed attempt.</p>");
    } else {
      h.raw(
              "<div class=\"scroll\"><table class=\"attempts\"><thead><tr><th>Attempt</th><th>At</th><th>Error</th>")
          .raw("<th>Message</th></tr></thead><tbody>");
      for (JobError e : j.errors()) {
        h.raw("<tr><td>").text(e.attempt()).raw("</td><td>").text(Html.time(e.at()));
        h.raw("</td><td>")
            .text(e.error())
            .raw(isRescue(e) ? " <span class=\"badge\">rescue</span>" : "");
        h.raw("</td><td>").text(e.message());
        if (e.rootCause() != null) {
          h.raw("<div class=\"root-cause\">caused by ").text(e.rootCause()).raw("</div>");
        }
        if (e.trace() != null) {
          h.raw("<details><summary>Stack trace</summary><pre class=\"trace\">").text(e.trace());
          h.raw("</pre></details>");
        }
        h.raw("</td></tr>");
      }
      h.raw("</tbody></table></div>");
    }
    h.raw("<h2>Timeline</h2><ol class=\"timeline\">");
    for (Event e : timeline(j, now)) {
      h.raw("<li><time>").text(Html.time(e.at())).raw("</time> ").text(e.what()).raw("</li>");
    }
    return h.raw("</ol>").toString();
  }

  /** The characters of a JSON value a list shows (args, outputs) before cutting it short. */
  private static final int PREVIEW = 80;

  /**
   * The job's progress, the jobs it waits for and the jobs that wait for it (each with its step
   * name, id, state and, when it failed, its last error), its output and its durable steps: only
   * the parts it has.
   */
  private void workflow(Html h, Views.JobFlow flow) {
    JobWorkflow wf = flow.workflow();
    h.raw("<section id=\"workflow\">");
    JobWorkflow.Progress p = wf.progress();
    if (p != null) {
      h.raw("<h2>Progress</h2><p id=\"progress\"><progress max=\"1\" value=\"")
          .text(p.fraction())
          .raw("\">")
          .text(String.format(Locale.ROOT, "%.0f%%", p.fraction() * 100))
          .raw("</progress> ")
          .text(String.format(Locale.ROOT, "%.0f%%", p.fraction() * 100));
      if (p.message() != null) {
        h.raw(" <span class=\"progress-message\">").text(p.message()).raw("</span>");
      }
      h.raw(" <span class=\"muted small\">at ").text(Html.time(p.at())).raw("</span></p>");
    }
    if (!wf.dependencies().isEmpty()) {
      h.raw("<h2>Waits for</h2><ol class=\"workflow\" id=\"dependencies\">");
      int shown = 0;
      for (dev.baton.Dependency d : wf.dependencies()) {
        if (shown++ == Views.MAX_WORKFLOW_ROWS) {
          break;
        }
        flowStep(h, d.name(), d.jobId(), d.state(), flow.lastErrors().get(d.jobId()));
        if (d.output() != null) {
          h.raw(" <span class=\"muted\">output</span> <code class=\"output\">")
              .text(Html.cut(d.output().toString(), PREVIEW))
              .raw("</code>");
        }
        h.raw("</li>");
      }
      more(h, wf.dependencies().size());
    }
    if (!wf.dependents().isEmpty()) {
      h.raw("<h2>Waited for by</h2><ol class=\"workflow\" id=\"dependents\">");
      int shown = 0;
      for (JobWorkflow.Dependent d : wf.dependents()) {
        if (shown++ == Views.MAX_WORKFLOW_ROWS) {
          break;
        }
        flowStep(h, d.name(), d.jobId(), d.state(), flow.lastErrors().get(d.jobId()));
        h.raw(" <span class=\"muted small\">if this job fails: ")
            .text(d.onFailure().name().toLowerCase(Locale.ROOT))
            .raw("</span></li>");
      }
      more(h, wf.dependents().size());
    }
    if (wf.output() != null) {
      h.raw("<h2>Output</h2><pre id=\"output\" class=\"json\">")
          .text(Html.cut(wf.output().toString(), PREVIEW))
          .raw("</pre>");
    }
    if (!wf.steps().isEmpty()) {
      h.raw("<h2>Steps</h2><div class=\"scroll\"><table class=\"steps\" id=\"steps\"><thead>")
          .raw("<tr><th>Step</th><th>Attempt</th><th>Recorded at</th><th>Result</th></tr>")
          .raw("</thead><tbody>");
      for (JobWorkflow.StepRecord st : wf.steps()) {
        h.raw("<tr><td>").text(st.name()).raw("</td><td>").text(st.attempt()).raw("</td><td>");
        h.text(Html.time(st.at())).raw("</td><td class=\"args\">");
        h.text(st.result() == null ? "-" : Html.cut(st.result().toString(), PREVIEW));
        h.raw("</td></tr>");
      }
      h.raw("</tbody></table></div>");
    }
    h.raw("</section>");
  }

  /**
   * One job of a workflow list, its {@code <li>} left open: step name, linked id, state (coloured
   * by its class) and the last error of a failed one.
   */
  private void flowStep(Html h, String name, long id, JobState state, JobError error) {
    String s = state == null ? "cleaned" : state.dbName();
    h.raw("<li data-id=\"")
        .text(id)
        .raw("\"><span class=\"step-name\">")
        .text(name == null ? "-" : name)
        .raw("</span> <a href=\"")
        .text(base + "/jobs/" + id)
        .raw("\">job ")
        .text(id)
        .raw("</a> <span class=\"state ")
        .text(s)
        .raw("\">")
        .text(s)
        .raw("</span>");
    if (error != null) {
      h.raw(" <span class=\"error-class\">").text(error.error()).raw("</span> ");
      h.text(error.message() == null ? "" : Html.cut(error.message(), 120));
    }
  }

  /** Closes a workflow list, saying how many jobs it left out. */
  private static void more(Html h, int total) {
    h.raw("</ol>");
    if (total > Views.MAX_WORKFLOW_ROWS) {
      h.raw("<p class=\"muted\">")
          .text(String.format(Locale.ROOT, "and %,d more", total - Views.MAX_WORKFLOW_ROWS))
          .raw("</p>");
    }
  }

  /**
   * Whether an error entry records a rescue, not a failure of the handler: the node was gone or its
   * lease ran out, and the attempt was given back.
   */
  static boolean isRescue(JobError e) {
    return e.isRescue();
  }

  /** The sign-in form of token mode, shown on its 401 page; {@code next} is where it goes on. */
  static String signInForm(String base, String next) {
    return new Html()
        .raw("<form class=\"sign-in\" method=\"post\" action=\"")
        .text(base + DashboardHandler.SIGN_IN)
        .raw("\"><label>Token <input type=\"password\" name=\"token\" autocomplete=\"off\"")
        .raw(" required autofocus></label><input type=\"hidden\" name=\"next\" value=\"")
        .text(next)
        .raw("\"><button type=\"submit\">Sign in</button></form>")
        .raw("<p class=\"muted\">Scripts send <code>Authorization: Bearer TOKEN</code> instead.")
        .raw(" Signing in keeps the token in a cookie of this browser until it closes.</p>")
        .toString();
  }

  /**
   * Whether the job is unique, the states it holds its key in, and who holds the key now: the job
   * itself, no job, or another job (which a retry of this one would meet), linked.
   */
  private void uniqueness(Html h, Job j, JobAdmin.Uniqueness u) {
    h.raw("<dt>Unique</dt><dd id=\"unique\">");
    if (u == null) {
      h.raw("no</dd>");
      return;
    }
    h.text("yes, holds its key while ");
    h.text(String.join(", ", u.states().stream().map(JobState::dbName).toList()));
    h.raw("<div class=\"muted small\" id=\"unique-holder\">");
    if (u.holder() == null) {
      h.text("no job holds the key now: a new one would be accepted");
    } else if (u.holder() == j.id()) {
      h.text("this job holds the key now");
    } else {
      h.raw("<a href=\"").text(base + "/jobs/" + u.holder()).raw("\">job ").text(u.holder());
      h.raw("</a> holds the key now: a retry of this job waits until it finishes");
    }
    h.raw("</div></dd>");
  }

  private static void dt(Html h, String name, Object value) {
    h.raw("<dt>").text(name).raw("</dt><dd>").text(value).raw("</dd>");
  }

  static String pretty(JsonNode node) {
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(node);
    } catch (JsonProcessingException e) {
      return String.valueOf(node);
    }
  }

  /** One moment of a job's life. */
  record Event(Instant at, String what) {}

  /**
   * The job's states over time, from what its row keeps: enqueue, each failed attempt, a retry or
   * cancel request by an operator, the latest attempt, the due time, the end. Earlier attempts that
   * did not fail (a snooze, a hand-back) leave no trace in the row.
   */
  static List<Event> timeline(Job j, Instant now) {
    List<Event> out = new ArrayList<>();
    out.add(new Event(j.createdAt(), "enqueued"));
    for (JobError e : j.errors()) {
      out.add(
          new Event(
              e.at(),
              isRescue(e)
                  ? "attempt " + e.attempt() + " rescued (" + e.error() + ", not counted)"
                  : "attempt " + e.attempt() + " failed: " + e.error()));
    }
    JsonNode m = j.metadata();
    Instant retried = instant(m.path("retried_at").asText(null));
    if (retried != null) {
      out.add(
          new Event(
              retried,
              "retried from "
                  + m.path("retried_from").asText("?")
                  + " by "
                  + m.path("retried_by").asText("?")));
    }
    Instant cancelRequested = instant(m.path("cancel_requested_at").asText(null));
    if (cancelRequested != null) {
      out.add(new Event(cancelRequested, "cancel requested"));
    }
    if (j.attemptedAt() != null) {
      out.add(
          new Event(
              j.attemptedAt(),
              "attempt "
                  + j.attempt()
                  + " started"
                  + (j.attemptedBy() == null ? "" : " on " + j.attemptedBy())
                  + " (fence "
                  + j.fence()
                  + ")"));
    }
    if (j.finalizedAt() != null) {
      out.add(new Event(j.finalizedAt(), j.state().dbName()));
    } else if (j.state() == JobState.SCHEDULED || j.state() == JobState.RETRYABLE) {
      out.add(
          new Event(
              j.scheduledAt(),
              (j.scheduledAt().isAfter(now) ? "due (in " : "due (")
                  + Html.between(now, j.scheduledAt()).replace("-", "")
                  + (j.scheduledAt().isAfter(now) ? ")" : " ago)")));
    } else {
      out.add(new Event(now, "now " + j.state().dbName()));
    }
    out.sort(Comparator.comparing(Event::at));
    return out;
  }

  // A time the database wrote into the metadata (ISO 8601 with an offset); null if absent or not
  // one, so a hand-edited metadata value never breaks the page.
  private static Instant instant(String text) {
    if (text == null) {
      return null;
    }
    try {
      return java.time.OffsetDateTime.parse(text).toInstant();
    } catch (java.time.format.DateTimeParseException e) {
      return null;
    }
  }

  // ---------------------------------------------------------------- failures

  /** Failed attempts grouped by queue, kind, error and root cause; rescues marked. */
  String failures(List<StatsAdmin.FailureGroup> groups, String queue, Instant now) {
    Html h = new Html();
    h.raw("<p class=\"muted\">Failed attempts of the last hour (handler failures, timeouts and")
        .raw(" rescues; not cancels), largest groups first")
        .text(queue == null ? "" : ", queue " + queue)
        .raw(". As of ")
        .text(Html.time(now))
        .raw(".</p>");
    if (groups.isEmpty()) {
      return h.raw("<p id=\"no-failures\">No failed attempt in the last hour.</p>").toString();
    }
    h.raw("<div class=\"scroll\"><table class=\"failures\"><thead><tr><th>Queue</th>")
        .raw("<th>Kind</th><th>Error</th><th>Root cause</th><th>Count</th><th>Last 5 min</th>")
        .raw("<th>First seen</th><th>Last seen</th><th>Last job</th></tr></thead><tbody>");
    for (StatsAdmin.FailureGroup g : groups) {
      StatsAdmin.FailureKey k = g.key();
      h.raw("<tr class=\"").raw(k.rescue() ? "rescue" : "failure").raw("\"><td>");
      h.raw("<a href=\"").text(base + "/jobs?queue=" + Html.url(k.queue())).raw("\">");
      h.text(k.queue()).raw("</a></td><td><a href=\"");
      h.text(base + "/jobs?queue=" + Html.url(k.queue()) + "&kind=" + Html.url(k.kind()));
      h.raw("\">").text(k.kind()).raw("</a></td><td class=\"error-class\">").text(k.error());
      h.raw(k.rescue() ? " <span class=\"badge\">rescue</span>" : "").raw("</td><td>");
      h.text(k.rootCause() == null ? "-" : k.rootCause()).raw("</td><td class=\"num\">");
      h.text(g.count()).raw("</td><td class=\"num\">").text(g.count5m()).raw("</td><td>");
      h.text(Html.between(g.firstAt(), now) + " ago").raw("</td><td>");
      h.text(Html.between(g.lastAt(), now) + " ago").raw("</td><td><a class=\"last-job\" href=\"");
      h.text(base + "/jobs/" + g.last().jobId()).raw("\">").text(g.last().jobId()).raw("</a> ");
      h.raw("<span class=\"muted\">").text(Html.cut(String.valueOf(g.last().message()), 120));
      h.raw("</span></td></tr>");
    }
    return h.raw("</tbody></table></div>").toString();
  }

  // ---------------------------------------------------------------- times

  /** Wait and run time percentiles per queue and kind, with links to the other windows. */
  String times(List<StatsAdmin.Latency> rows, String window, Instant now) {
    Html h = new Html();
    h.raw("<nav class=\"tabs\">");
    for (String w : Views.TIME_WINDOW_NAMES) {
      h.raw("<a href=\"").text(base + "/times?window=" + w).raw("\"");
      h.raw(w.equals(window) ? " class=\"current\">" : ">").text("last " + w).raw("</a>");
    }
    h.raw("</nav><p class=\"muted\">Wait = from due to start, run = from start to end, of the")
        .text(String.format(Locale.ROOT, " latest %,d completions", Views.TIME_SAMPLE))
        .raw(" of the window still kept (completed jobs are kept for their retention, 24 hours by")
        .raw(" default). As of ")
        .text(Html.time(now))
        .raw(".</p>");
    if (rows.isEmpty()) {
      return h.raw("<p id=\"no-times\">No completed job kept in this window.</p>").toString();
    }
    h.raw("<div class=\"scroll\"><table class=\"times\"><thead><tr><th>Queue</th><th>Kind</th>")
        .raw("<th>Completions</th><th>Wait p50</th><th>p95</th><th>p99</th><th>Run p50</th>")
        .raw("<th>p95</th><th>p99</th></tr></thead><tbody>");
    for (StatsAdmin.Latency l : rows) {
      h.raw("<tr data-queue=\"").text(l.queue()).raw("\" data-kind=\"").text(l.kind()).raw("\">");
      h.raw("<td>").text(l.queue()).raw("</td><td>").text(l.kind()).raw("</td><td class=\"num\">");
      h.text(l.sampled()).raw("</td>");
      for (StatsAdmin.Percentiles p : List.of(l.waitTime(), l.runTime())) {
        for (double ms : new double[] {p.p50(), p.p95(), p.p99()}) {
          h.raw("<td class=\"num\">").text(Html.age(ms / 1000)).raw("</td>");
        }
      }
      h.raw("</tr>");
    }
    return h.raw("</tbody></table></div>").toString();
  }

  // ---------------------------------------------------------------- history

  /**
   * Completed, failed and rescued jobs per queue over a range, as stacked bars on one scale shared
   * by every queue, with totals and links to the other ranges.
   */
  String history(
      List<StatsAdmin.QueueHistory> rows, String range, Views.HistoryRange hr, Instant now) {
    Html h = new Html();
    h.raw("<nav class=\"tabs\">");
    for (String name : Views.TIME_WINDOW_NAMES) {
      h.raw("<a href=\"").text(base + "/history?range=" + name).raw("\"");
      h.raw(name.equals(range) ? " class=\"current\">" : ">").text("last " + name).raw("</a>");
    }
    long scale = 1;
    for (StatsAdmin.QueueHistory q : rows) {
      for (int i = 0; i < q.completed().size(); i++) {
        scale = Math.max(scale, q.completed().get(i) + q.failed().get(i) + q.rescued().get(i));
      }
    }
    h.raw("</nav><p class=\"muted\">Jobs that finished per queue, a bar per ")
        .text(hr.per())
        .raw(" on one scale for every queue (the tallest bar: ")
        .text(String.format(Locale.ROOT, "%,d", scale))
        .raw(" jobs): <span class=\"key completed\">completed</span>, <span class=\"key failed\">")
        .raw("failed</span> (discarded after a failed attempt), <span class=\"key rescued\">")
        .raw(
            "rescued</span> (discarded after their node died or lost its lease). The leader counts")
        .raw(" them every minute and keeps 7 days. As of ")
        .text(Html.time(now))
        .raw(".</p>");
    if (rows.isEmpty()) {
      return h.raw("<p id=\"no-history\">No job finished in this range.</p>").toString();
    }
    h.raw("<div class=\"scroll\"><table class=\"history\"><thead><tr><th>Queue</th>")
        .raw("<th>Finished per ")
        .text(hr.per())
        .raw("</th><th class=\"num\">Completed</th><th class=\"num\">Failed</th>")
        .raw("<th class=\"num\">Rescued</th><th class=\"num\">Cancelled</th></tr></thead><tbody>");
    for (StatsAdmin.QueueHistory q : rows) {
      h.raw("<tr data-queue=\"").text(q.queue()).raw("\"><td><a href=\"");
      h.text(base + "/jobs?queue=" + Html.url(q.queue())).raw("\">").text(q.queue());
      h.raw("</a></td><td>").raw(historyChart(q, scale)).raw("</td>");
      for (List<Long> counts : List.of(q.completed(), q.failed(), q.rescued(), q.cancelled())) {
        long total = counts.stream().mapToLong(Long::longValue).sum();
        h.raw("<td class=\"num\">").text(String.format(Locale.ROOT, "%,d", total)).raw("</td>");
      }
      h.raw("</tr>");
    }
    return h.raw("</tbody></table></div>").toString();
  }

  /**
   * One queue's bars, oldest left: completed at the bottom, failed and rescued stacked on it; each
   * bar titled with its counts and when. {@code scale} is a full-height bar's count.
   */
  static String historyChart(StatsAdmin.QueueHistory q, long scale) {
    int w = 5;
    int gap = 1;
    int height = 40;
    int n = q.completed().size();
    Html h = new Html();
    h.raw("<svg class=\"chart history\" width=\"")
        .text(n * (w + gap))
        .raw("\" height=\"")
        .text(height)
        .raw("\" role=\"img\" aria-label=\"")
        .text("jobs of queue " + q.queue() + " finished over time")
        .raw("\">");
    for (int i = 0; i < n; i++) {
      long c = q.completed().get(i);
      long f = q.failed().get(i);
      long r = q.rescued().get(i);
      Instant to = q.end().minus(q.bucket().multipliedBy(n - 1L - i));
      Instant from = to.minus(q.bucket());
      String title =
          String.format(
              Locale.ROOT,
              "%s to %s: %,d completed, %,d failed, %,d rescued, %,d cancelled",
              Html.time(from),
              Html.time(to),
              c,
              f,
              r,
              q.cancelled().get(i));
      h.raw("<g><title>").text(title).raw("</title>");
      int x = i * (w + gap);
      if (c + f + r == 0) {
        h.raw("<rect x=\"").text(x).raw("\" y=\"").text(height - 1);
        h.raw("\" width=\"").text(w).raw("\" height=\"1\" class=\"zero\"></rect>");
      }
      int y = height;
      long[] parts = {c, f, r};
      String[] classes = {"completed", "failed", "rescued"};
      for (int p = 0; p < parts.length; p++) {
        if (parts[p] == 0) {
          continue;
        }
        int bar = (int) Math.max(1, Math.round((double) parts[p] / scale * height));
        y -= bar;
        h.raw("<rect x=\"").text(x).raw("\" y=\"").text(y).raw("\" width=\"").text(w);
        h.raw("\" height=\"").text(bar).raw("\" class=\"").text(classes[p]).raw("\"></rect>");
      }
      h.raw("</g>");
    }
    return h.raw("</svg>").toString();
  }

  // ---------------------------------------------------------------- nodes, periodic

  String nodes(Views.Cluster c, Instant now) {
    Html h = new Html();
    LeaderInfo l = c.leader().orElse(null);
    h.raw("<p id=\"leader\">");
    if (l == null) {
      h.text("No leader was ever elected.");
    } else {
      boolean expired = l.expiresAt().isBefore(now);
      h.text("Leader: " + l.nodeId() + " (term " + l.term() + ", elected ")
          .text(Html.time(l.electedAt()))
          .text(expired ? ", lease expired " : ", lease until ")
          .text(Html.time(l.expiresAt()) + ")");
    }
    h.raw("</p>");
    if (c.nodes().isEmpty()) {
      return h.raw("<p>No node is registered.</p>").toString();
    }
    h.raw(
            "<div class=\"scroll\"><table class=\"nodes\"><thead><tr><th>Node</th><th>Host</th><th>Pid</th>")
        .raw("<th>Queues</th><th>Version</th><th>Started</th><th>Last heartbeat</th></tr>")
        .raw("</thead><tbody>");
    for (NodeInfo n : c.nodes()) {
      boolean leads = l != null && l.nodeId().equals(n.id()) && !l.expiresAt().isBefore(now);
      h.raw("<tr><td>").text(n.id()).raw(leads ? " <span class=\"badge\">leader</span>" : "");
      h.raw("</td><td>").text(n.host()).raw("</td><td>").text(n.pid()).raw("</td><td>");
      h.text(String.join(", ", n.queues())).raw("</td><td>").text(n.version()).raw("</td><td>");
      h.text(Html.time(n.startedAt())).raw("</td><td>").text(Html.time(n.heartbeatAt()));
      h.text(" (" + Html.between(n.heartbeatAt(), now) + " ago)").raw("</td></tr>");
    }
    return h.raw("</tbody></table></div>").toString();
  }

  String periodic(List<PeriodicAdmin.PeriodicInfo> list) {
    Html h = new Html();
    if (list.isEmpty()) {
      return h.raw("<p>No periodic job has been registered with a leader.</p>").toString();
    }
    h.raw(
            "<div class=\"scroll\"><table class=\"periodic\"><thead><tr><th>Name</th><th>Schedule</th><th>Last due</th>")
        .raw("<th>Last job</th><th>Next due</th></tr></thead><tbody>");
    for (PeriodicAdmin.PeriodicInfo p : list) {
      h.raw("<tr><td>").text(p.name()).raw("</td><td><code>").text(p.schedule());
      h.raw("</code> ").text(p.zone().getId());
      h.raw("</td><td>").text(Html.time(p.lastDueAt())).raw("</td><td>");
      if (p.lastJobId() == null) {
        h.raw("-");
      } else {
        h.raw("<a href=\"").text(base + "/jobs/" + p.lastJobId()).raw("\">").text(p.lastJobId());
        h.raw("</a>");
      }
      h.raw("</td><td>").text(Html.time(p.nextDueAt())).raw("</td></tr>");
    }
    return h.raw("</tbody></table></div>").toString();
  }
}
