package dev.baton.dashboard;

import dev.baton.BatonConfig;
import dev.baton.BatonException;
import dev.baton.InvalidConfigException;
import dev.baton.Job;
import dev.baton.JobError;
import dev.baton.JobState;
import dev.baton.LeaderInfo;
import dev.baton.NodeInfo;
import dev.baton.QueueInfo;
import dev.baton.admin.BatonAdmin;
import dev.baton.admin.JobAdmin;
import dev.baton.admin.JobBrowser;
import dev.baton.admin.JobWorkflow;
import dev.baton.admin.StatsAdmin;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the pages and the API show and do, on the operator API ({@link BatonAdmin}) only. Each
 * action answers with an {@link Outcome}: doing it twice changes nothing the second time and says
 * so.
 */
final class Views {
  private static final Logger log = LoggerFactory.getLogger(Views.class);

  /** Who the admin API records as having retried a job. */
  static final String ACTOR = "dashboard";

  /** The window of the throughput chart: one hour. */
  static final Duration CHART_WINDOW = Duration.ofHours(1);

  /** One bar of the throughput chart: five minutes. */
  static final Duration CHART_BUCKET = Duration.ofMinutes(5);

  /** Most jobs a state tab of the job list counts: 1,000 (more show as "1,000+"). */
  static final long TAB_COUNT_CAP = 1_000;

  /**
   * The count of each state's tab for the filter {@code f} (its state aside), capped at {@value
   * #TAB_COUNT_CAP}: only where the state's index serves the filter, so that a count reads at most
   * the cap's rows; null (no count shown) where a kind, a JSON filter, or a queue outside the claim
   * order would be checked on every row of the state, and for pending jobs, which no index lists.
   */
  Map<JobState, Long> tabCounts(JobBrowser.Filter f) {
    Map<JobState, Long> out = new java.util.EnumMap<>(JobState.class);
    boolean rowChecks = f.kind() != null || f.args() != null || f.metadata() != null;
    boolean one = f.id() != null || f.idempotencyKey() != null;
    for (JobState s : JobState.values()) {
      boolean indexed =
          one
              || s == JobState.RUNNING
              || !rowChecks
                  && s != JobState.PENDING
                  && (f.queue() == null || s == JobState.AVAILABLE);
      if (indexed) {
        out.put(s, admin.count(f.withState(s), TAB_COUNT_CAP + 1));
      }
    }
    return out;
  }

  /**
   * The queue names the registered nodes work, for the queue picker: read from the node registry (a
   * row per node), never from the job table.
   */
  List<String> queueNames() {
    return admin.nodes().stream().flatMap(n -> n.queues().stream()).distinct().sorted().toList();
  }

  /** The windows of the wait and run times page, by their name in its address. */
  static final Map<String, Duration> TIME_WINDOWS =
      Map.of("1h", Duration.ofHours(1), "24h", Duration.ofHours(24), "7d", Duration.ofDays(7));

  /** The windows' names, shortest first. */
  static final List<String> TIME_WINDOW_NAMES = List.of("1h", "24h", "7d");

  /** A range of the history page and the length of its bars. */
  record HistoryRange(Duration range, Duration bucket, String per) {}

  /**
   * The ranges of the history page, by their name in its address: an hour in minutes, a day in 20
   * minutes, 7 days in 2 hours.
   */
  static final Map<String, HistoryRange> HISTORY_RANGES =
      Map.of(
          "1h", new HistoryRange(Duration.ofHours(1), Duration.ofMinutes(1), "minute"),
          "24h", new HistoryRange(Duration.ofHours(24), Duration.ofMinutes(20), "20 minutes"),
          "7d", new HistoryRange(Duration.ofDays(7), Duration.ofHours(2), "2 hours"));

  /** Completions the wait and run times are of: the latest 10,000 of the window. */
  static final int TIME_SAMPLE = 10_000;

  /** Most jobs one bulk action touches: 10,000. */
  static final int MAX_BULK = 10_000;

  final BatonAdmin admin;
  private final String pausedBy;

  /**
   * Views on {@code admin}; a queue paused here records {@code pausedBy} as who paused it (the node
   * id of the client the dashboard was built with, else {@value #ACTOR}).
   */
  Views(BatonAdmin admin, String pausedBy) {
    this.admin = admin;
    this.pausedBy = pausedBy;
  }

  /** Who an action is recorded as taken by when the request names no user. */
  String defaultActor() {
    return pausedBy;
  }

  /**
   * A node whose registry heartbeat is older than this is shown as stale: 30 seconds, three of the
   * default node heartbeat intervals ({@link
   * dev.baton.BatonConfig#DEFAULT_NODE_HEARTBEAT_INTERVAL}).
   */
  static final Duration STALE_AFTER = BatonConfig.DEFAULT_NODE_HEARTBEAT_INTERVAL.multipliedBy(3);

  /** The oldest available job's age from which it is shown as a warning: 1 minute. */
  static final Duration OLDEST_WARN = Duration.ofMinutes(1);

  /** The oldest available job's age from which it is shown as bad: 5 minutes. */
  static final Duration OLDEST_BAD = Duration.ofMinutes(5);

  /** The handler failure share from which it is shown as a warning: 5%. */
  static final double FAILURE_WARN = 0.05;

  /** The handler failure share from which it is shown as bad: 25%. */
  static final double FAILURE_BAD = 0.25;

  /** Fewer attempts than this in a window are too few to colour a failure share: 20. */
  static final long MIN_SAMPLE = 20;

  /** Failure groups read for the overview and the failures page: at most 500. */
  static final int FAILURE_GROUPS = StatsAdmin.MAX_FAILURE_GROUPS;

  /** Rescues of a queue (attempts given back because the node or its lease was lost). */
  record Rescues(long in5m, long in1h) {}

  /**
   * A queue on the overview: its figures, its control row (paused, by whom, since when), its
   * completions per bucket, the live nodes working it, and its rescues (counted in the figures'
   * failed attempts, shown apart).
   */
  record QueueRow(
      String name,
      StatsAdmin.QueueStats stats,
      QueueInfo info,
      List<Long> completed,
      int liveNodes,
      Rescues rescues,
      StatsAdmin.LimitsInUse limits) {
    boolean paused() {
      return info != null && info.paused();
    }

    /** Failed attempts of handlers in the last 5 minutes: failed attempts less rescues. */
    long handlerFailed5m() {
      return Math.max(0, stats.failed5m() - rescues.in5m());
    }

    /** Failed attempts of handlers in the last hour. */
    long handlerFailed1h() {
      return Math.max(0, stats.failed1h() - rescues.in1h());
    }

    /** The queue's backlog cap, or null for none. */
    Integer backlogCap() {
      return info == null ? null : info.backlogCap();
    }

    /** The jobs a backlog cap counts: available, scheduled and retryable. */
    long waiting() {
      return stats.available() + stats.scheduled() + stats.retryable();
    }

    /** Jobs are waiting to be claimed and no live node works the queue. */
    boolean unworked() {
      return stats.available() > 0 && liveNodes == 0 && !paused();
    }
  }

  /** The overview: the cluster and every queue. */
  record Overview(Cluster cluster, List<QueueRow> queues, Instant at) {

    /** The nodes whose heartbeat is recent. */
    long alive() {
      return cluster.nodes().stream().filter(n -> Views.alive(n, at)).count();
    }
  }

  /** Whether {@code node}'s heartbeat is within {@link #STALE_AFTER} of {@code now}. */
  static boolean alive(NodeInfo node, Instant now) {
    return node.heartbeatAt() != null && !node.heartbeatAt().plus(STALE_AFTER).isBefore(now);
  }

  /**
   * Every queue with figures, completions, a live or stale node working it, paused or capped: a
   * queue known only by its control row is shown while it is paused or has a backlog cap; once
   * resumed and uncapped, a name that no job and no node has is nothing to look at.
   */
  Overview overview() {
    Instant now = Instant.now();
    Map<String, StatsAdmin.QueueStats> figures = new TreeMap<>();
    admin.stats().forEach(q -> figures.put(q.queue(), q));
    Map<String, QueueInfo> infos = new TreeMap<>();
    admin.queues().forEach(q -> infos.put(q.name(), q));
    Map<String, StatsAdmin.LimitsInUse> limits = new TreeMap<>();
    admin.limitsInUse().forEach(l -> limits.put(l.queue(), l));
    Map<String, List<Long>> completed = new TreeMap<>();
    admin
        .completions(CHART_WINDOW, CHART_BUCKET)
        .forEach(c -> completed.put(c.queue(), c.completed()));
    Cluster cluster = cluster();
    Map<String, Integer> live = new TreeMap<>();
    Set<String> shown = new TreeSet<>(figures.keySet());
    shown.addAll(completed.keySet());
    infos.values().stream()
        .filter(q -> q.paused() || q.backlogCap() != null)
        .forEach(q -> shown.add(q.name()));
    shown.addAll(limits.keySet());
    for (NodeInfo n : cluster.nodes()) {
      shown.addAll(n.queues());
      if (alive(n, now)) {
        n.queues().forEach(q -> live.merge(q, 1, Integer::sum));
      }
    }
    Map<String, Rescues> rescues = new TreeMap<>();
    for (StatsAdmin.FailureGroup g : admin.failures(CHART_WINDOW, FAILURE_GROUPS)) {
      if (g.key().rescue()) {
        rescues.merge(
            g.key().queue(),
            new Rescues(g.count5m(), g.count()),
            (a, b) -> new Rescues(a.in5m() + b.in5m(), a.in1h() + b.in1h()));
      }
    }
    int bars = (int) (CHART_WINDOW.toSeconds() / CHART_BUCKET.toSeconds());
    List<QueueRow> out = new ArrayList<>();
    for (String n : shown) {
      out.add(
          new QueueRow(
              n,
              figures.getOrDefault(n, empty(n)),
              infos.get(n),
              completed.getOrDefault(n, java.util.Collections.nCopies(bars, 0L)),
              live.getOrDefault(n, 0),
              rescues.getOrDefault(n, new Rescues(0, 0)),
              limits.get(n)));
    }
    return new Overview(cluster, out, now);
  }

  private static StatsAdmin.QueueStats empty(String queue) {
    return new StatsAdmin.QueueStats(queue, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  }

  /** The nodes, and the leader as recorded. */
  record Cluster(List<NodeInfo> nodes, Optional<LeaderInfo> leader) {}

  Cluster cluster() {
    return new Cluster(admin.nodes(), admin.leader());
  }

  /** The job with {@code id}, or a 404. */
  Job job(long id) {
    return admin.get(id).orElseThrow(() -> new BadRequest(404, "no job with id " + id));
  }

  /** The most dependencies, and the most dependents, a job's page lists. */
  static final int MAX_WORKFLOW_ROWS = 50;

  /**
   * What a job's page shows of its workflow: {@link BatonAdmin#workflow(long)}, and the last error
   * of each listed dependency or dependent that failed (discarded, cancelled or retryable), read
   * one job at a time for at most {@link #MAX_WORKFLOW_ROWS} of each list.
   *
   * @param workflow the job's dependencies, dependents, output, steps and progress
   * @param lastErrors the last error entry of the listed jobs that have failed, by job id
   */
  record JobFlow(JobWorkflow workflow, Map<Long, JobError> lastErrors) {

    /** Whether the job has any dependency, dependent, output, step or progress to show. */
    boolean isEmpty() {
      return workflow.dependencies().isEmpty()
          && workflow.dependents().isEmpty()
          && workflow.output() == null
          && workflow.steps().isEmpty()
          && workflow.progress() == null;
    }
  }

  /** The workflow of job {@code id} for its page, or a 404. */
  JobFlow flow(long id) {
    JobWorkflow wf =
        admin.workflow(id).orElseThrow(() -> new BadRequest(404, "no job with id " + id));
    Map<Long, JobError> errors = new java.util.HashMap<>();
    List<Map.Entry<Long, JobState>> listed = new ArrayList<>();
    wf.dependencies().stream()
        .limit(MAX_WORKFLOW_ROWS)
        .forEach(d -> listed.add(Map.entry(d.jobId(), d.state())));
    wf.dependents().stream()
        .limit(MAX_WORKFLOW_ROWS)
        .filter(d -> d.state() != null)
        .forEach(d -> listed.add(Map.entry(d.jobId(), d.state())));
    for (Map.Entry<Long, JobState> e : listed) {
      if (FAILED.contains(e.getValue()) && !errors.containsKey(e.getKey())) {
        admin
            .get(e.getKey())
            .filter(j -> !j.errors().isEmpty())
            .ifPresent(j -> errors.put(j.id(), j.errors().get(j.errors().size() - 1)));
      }
    }
    return new JobFlow(wf, errors);
  }

  private static final Set<JobState> FAILED =
      EnumSet.of(JobState.DISCARDED, JobState.CANCELLED, JobState.RETRYABLE);

  /**
   * What an action did.
   *
   * @param status the HTTP status of its answer
   * @param outcome a stable name for scripts, e.g. {@code retried}, {@code already_available}
   * @param message a sentence for a person
   * @param job the job after the action, or null
   */
  record Outcome(int status, String outcome, String message, Job job) {}

  Outcome retry(long id, String by) {
    JobAdmin.RetryResult r;
    try {
      r = admin.retry(id, by);
    } catch (BatonException e) {
      // A finished unique job whose key another job holds now: the operator API refuses it with
      // the reason, which the operator gets as a conflict (any other failure stays a failure).
      Long holder = admin.uniqueness(id).map(JobAdmin.Uniqueness::holder).orElse(null);
      if (holder == null || holder == id) {
        throw e;
      }
      log.info("dashboard: job {} retry by {}: job {} holds its unique key", id, by, holder);
      return new Outcome(
          409, "unique_key_held", e.getMessage() + " (it is held by job " + holder + ")", null);
    }
    log.info("dashboard: job {} retry by {}: {}", id, by, r.outcome());
    return switch (r.outcome()) {
      case RETRIED ->
          new Outcome(
              200,
              "retried",
              "job " + id + " retried (was " + r.previousState().dbName() + "); it is available",
              r.job());
      case ALREADY_AVAILABLE ->
          new Outcome(200, "already_available", "job " + id + " is available already", r.job());
      case RUNNING ->
          new Outcome(
              409,
              "running",
              "job " + id + " is running; a running job is not retried: cancel it first",
              r.job());
      case PENDING ->
          new Outcome(
              409,
              "pending",
              "job "
                  + id
                  + " is pending (it waits for its dependencies); retry a failed dependency, or"
                  + " cancel it",
              r.job());
      case NOT_FOUND -> new Outcome(404, "not_found", "no job with id " + id, null);
    };
  }

  Outcome runNow(long id, String by) {
    JobAdmin.RunNowResult r = admin.runNow(id, by);
    log.info("dashboard: job {} run now by {}: {}", id, by, r.outcome());
    Job job = r.job();
    return switch (r.outcome()) {
      case MADE_AVAILABLE -> new Outcome(200, "run_now", "job " + id + " made available now", job);
      case ALREADY_AVAILABLE ->
          new Outcome(200, "already_available", "job " + id + " is available already", job);
      case NOT_WAITING ->
          new Outcome(
              409,
              job.state().dbName(),
              "job "
                  + id
                  + " is "
                  + job.state().dbName()
                  + "; run now applies to a scheduled or retryable job (retry a final one)",
              job);
      case NOT_FOUND -> throw new BadRequest(404, "no job with id " + id);
    };
  }

  Outcome cancel(long id, String by) {
    Job before = job(id);
    if (before.state().isFinal()) {
      return finalAlready(before);
    }
    Optional<JobState> after = admin.cancel(id, by);
    log.info("dashboard: job {} cancel by {}: {}", id, by, after.map(JobState::dbName).orElse("-"));
    if (after.isEmpty()) {
      // It finished (or was deleted) between the read and the cancel.
      return admin.get(id).map(Views::finalAlready).orElseGet(() -> notFound(id));
    }
    Job job = admin.get(id).orElse(before);
    return after.get() == JobState.RUNNING
        ? new Outcome(
            202,
            "cancel_requested",
            "job " + id + " is running: its worker was told to stop it; it becomes cancelled then",
            job)
        : new Outcome(200, "cancelled", "job " + id + " cancelled", job);
  }

  private static Outcome finalAlready(Job job) {
    return job.state() == JobState.CANCELLED
        ? new Outcome(200, "already_cancelled", "job " + job.id() + " is cancelled already", job)
        : new Outcome(
            409,
            job.state().dbName(),
            "job " + job.id() + " is " + job.state().dbName() + " (final); nothing to cancel",
            job);
  }

  private static Outcome notFound(long id) {
    return new Outcome(404, "not_found", "no job with id " + id, null);
  }

  Outcome delete(long id, String by) {
    JobAdmin.DeleteResult r = admin.delete(id);
    log.info("dashboard: job {} delete by {}: {}", id, by, r.outcome());
    return switch (r.outcome()) {
      case DELETED -> new Outcome(200, "deleted", "job " + id + " deleted", r.job());
      case RUNNING ->
          new Outcome(
              409,
              "running",
              "job " + id + " is running; a running job is not deleted: cancel it first",
              r.job());
      case NOT_FOUND -> notFound(id);
    };
  }

  Outcome pause(String queue, String by) {
    try {
      admin.pause(queue, by);
    } catch (InvalidConfigException e) {
      throw BadRequest.of(e.getMessage());
    }
    return new Outcome(200, "paused", "queue " + queue + " paused", null);
  }

  Outcome resume(String queue, String by) {
    boolean resumed;
    try {
      resumed = admin.resume(queue, by);
    } catch (InvalidConfigException e) {
      throw BadRequest.of(e.getMessage());
    }
    return resumed
        ? new Outcome(200, "resumed", "queue " + queue + " resumed", null)
        : new Outcome(200, "not_paused", "queue " + queue + " was not paused", null);
  }

  /** The share of its backlog cap from which a queue's waiting count is shown as a warning. */
  static final double CAP_WARN = 0.8;

  /**
   * The backlog cap an operator typed for {@code queue}: a whole number (thousands separated by
   * commas or underscores allowed), else a 400 naming the range; the range itself is the operator
   * API's check.
   */
  static int backlogCap(String queue, String given) {
    try {
      return Integer.parseInt(given == null ? "" : given.replace(",", "").replace("_", ""));
    } catch (NumberFormatException e) {
      throw BadRequest.of(
          "invalid backlog cap for queue "
              + queue
              + ": expected a whole number 1.."
              + BatonAdmin.MAX_BACKLOG_CAP
              + ", got "
              + (given == null ? "none" : Request.shown(given)));
    }
  }

  /**
   * Sets {@code queue}'s backlog cap to {@code cap}, recording {@code by} in the log. A queue that
   * had no cap takes {@link BatonAdmin#CAP_PROPAGATION} to answer (every client checks the cap once
   * it has).
   */
  Outcome setBacklogCap(String queue, int cap, String by) {
    java.util.OptionalInt before;
    try {
      before = admin.setBacklogCap(queue, cap, by);
    } catch (InvalidConfigException e) {
      throw BadRequest.of(e.getMessage());
    }
    log.info(
        "dashboard: queue {} backlog cap set to {} by {} (was {})",
        queue,
        cap,
        by,
        before.isPresent() ? before.getAsInt() : "none");
    return new Outcome(
        200,
        "cap_set",
        "queue "
            + queue
            + " backlog cap set to "
            + cap
            + (before.isPresent() ? " (was " + before.getAsInt() + ")" : ""),
        null);
  }

  /**
   * A limit an operator typed for {@code queue}: a whole number (thousands separated by commas or
   * underscores allowed) of {@code min}..1,000,000, else a 400 naming the field, the range and what
   * was given.
   */
  static int limit(String queue, String field, String given, int min) {
    String expected =
        "invalid "
            + field
            + " for queue "
            + queue
            + ": expected a whole number "
            + min
            + ".."
            + BatonConfig.MAX_CONCURRENCY_LIMIT
            + ", got ";
    int n;
    try {
      n = Integer.parseInt(given == null ? "" : given.strip().replace(",", "").replace("_", ""));
    } catch (NumberFormatException e) {
      throw BadRequest.of(expected + (given == null ? "none" : Request.shown(given)));
    }
    if (n < min || n > BatonConfig.MAX_CONCURRENCY_LIMIT) {
      throw BadRequest.of(expected + n);
    }
    return n;
  }

  /**
   * The args field an operator typed for {@code queue}'s limit per key ({@code what} names the
   * form's field): 1-128 characters, else a 400 naming the field and what was given.
   */
  static String keyField(String queue, String what, String given) {
    String f = given == null ? "" : given.strip();
    if (f.isEmpty() || f.length() > 128) {
      throw BadRequest.of(
          "invalid "
              + what
              + " for queue "
              + queue
              + ": expected the name of a top-level field of the jobs' args, 1-128 characters,"
              + " got "
              + (given == null ? "none" : Request.shown(given)));
    }
    return f;
  }

  /**
   * The period an operator typed for {@code queue}'s rate limit: a whole number with {@code ms},
   * {@code s}, {@code m} or {@code h} (as {@code baton queues rate} takes it), 1 ms..1 day, else a
   * 400 naming the field and what was given.
   */
  static Duration ratePeriod(String queue, String given) {
    String t = given == null ? "" : given.strip().toLowerCase(java.util.Locale.ROOT);
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d{1,9})(ms|s|m|h)").matcher(t);
    Duration d = null;
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      d =
          switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            default -> Duration.ofHours(n);
          };
    }
    if (d == null || d.isZero() || d.compareTo(BatonConfig.MAX_RATE_PERIOD) > 0) {
      throw BadRequest.of(
          "invalid rate period for queue "
              + queue
              + ": expected a whole number with ms, s, m or h (such as 1s), 1ms..24h, got "
              + (given == null ? "none" : Request.shown(given)));
    }
    return d;
  }

  /** Sets {@code queue}'s cluster-wide concurrency limit, recording {@code by} in the log. */
  Outcome limitConcurrency(String queue, int limit, String by) {
    try {
      admin.limitConcurrency(queue, limit, by);
    } catch (InvalidConfigException e) {
      throw BadRequest.of(e.getMessage());
    }
    log.info("dashboard: queue {} limited to {} running jobs by {}", queue, limit, by);
    return new Outcome(
        200,
        "limit_set",
        "queue " + queue + " limited to " + limit + " running jobs across the cluster",
        null);
  }

  /** Sets {@code queue}'s concurrency limit per key, recording {@code by} in the log. */
  Outcome limitConcurrencyPerKey(String queue, String field, int limit, String by) {
    try {
      admin.limitConcurrencyPerKey(queue, field, limit, by);
    } catch (InvalidConfigException e) {
      throw BadRequest.of(e.getMessage());
    } catch (BatonException e) {
      String other = limitsOf(queue).map(StatsAdmin.LimitsInUse::rateKeyField).orElse(null);
      throw oneKeyField(e, queue, "key field", field, "rate limit per key", other);
    }
    log.info(
        "dashboard: queue {} limited to {} running jobs per key (args field {}) by {}",
        queue,
        limit,
        field,
        by);
    return new Outcome(
        200,
        "key_limit_set",
        "queue " + queue + " limited to " + limit + " running jobs per " + field,
        null);
  }

  /** Sets {@code queue}'s rate limit, recording {@code by} in the log. */
  Outcome limitRate(String queue, int limit, Duration period, String by) {
    try {
      admin.limitRate(queue, limit, period, by);
    } catch (InvalidConfigException e) {
      throw BadRequest.of(e.getMessage());
    }
    log.info("dashboard: queue {} limited to {} starts per {} by {}", queue, limit, period, by);
    return new Outcome(
        200,
        "rate_set",
        "queue " + queue + " limited to " + limit + " starts per " + Html.period(period),
        null);
  }

  /**
   * Sets {@code queue}'s rate limit per key (the args field {@code field}), recording {@code by} in
   * the log.
   */
  Outcome limitRatePerKey(String queue, String field, int limit, Duration period, String by) {
    try {
      admin.limitRatePerKey(queue, field, limit, period, by);
    } catch (InvalidConfigException e) {
      throw BadRequest.of(e.getMessage());
    } catch (BatonException e) {
      String other = limitsOf(queue).map(StatsAdmin.LimitsInUse::keyField).orElse(null);
      throw oneKeyField(e, queue, "rate key field", field, "concurrency limit per key", other);
    }
    log.info(
        "dashboard: queue {} limited to {} starts per {} per key (args field {}) by {}",
        queue,
        limit,
        period,
        field,
        by);
    return new Outcome(
        200,
        "rate_key_set",
        "queue "
            + queue
            + " limited to "
            + limit
            + " starts per "
            + Html.period(period)
            + " per "
            + field,
        null);
  }

  private Optional<StatsAdmin.LimitsInUse> limitsOf(String queue) {
    return admin.limitsInUse().stream().filter(l -> l.queue().equals(queue)).findFirst();
  }

  /**
   * A refused limit per key as the operator's mistake when the queue's other limit per key names
   * another field (the database keeps one key field per queue): a 400 naming the form's field; any
   * other failure stays a failure.
   */
  private static RuntimeException oneKeyField(
      BatonException e, String queue, String what, String given, String otherLimit, String other) {
    if (other == null || other.equals(given)) {
      return e;
    }
    return BadRequest.of(
        "invalid "
            + what
            + " for queue "
            + queue
            + ": expected the field of its "
            + otherLimit
            + " ("
            + Request.shown(other)
            + "), as a queue limited per key in concurrency and in rate has one key field, got "
            + Request.shown(given));
  }

  /**
   * Removes one of {@code queue}'s limits ({@code kind}: {@code limit}, {@code key_limit} or {@code
   * rate}), recording {@code by} in the log. Removing a limit that is not set changes nothing.
   */
  Outcome removeLimit(String queue, String kind, String by) {
    try {
      switch (kind) {
        case "limit" -> admin.removeConcurrencyLimit(queue, by);
        case "key_limit" -> admin.removeConcurrencyLimitPerKey(queue, by);
        default -> admin.removeRateLimit(queue, by);
      }
    } catch (InvalidConfigException e) {
      throw BadRequest.of(e.getMessage());
    }
    String what =
        switch (kind) {
          case "limit" -> "cluster-wide concurrency limit";
          case "key_limit" -> "concurrency limit per key";
          default -> "rate limit";
        };
    log.info("dashboard: queue {} {} removed by {}", queue, what, by);
    return new Outcome(200, kind + "_removed", "queue " + queue + " has no " + what + " now", null);
  }

  /** Removes {@code queue}'s backlog cap, recording {@code by} in the log. */
  Outcome removeBacklogCap(String queue, String by) {
    boolean removed;
    try {
      removed = admin.removeBacklogCap(queue, by);
    } catch (InvalidConfigException e) {
      throw BadRequest.of(e.getMessage());
    }
    log.info("dashboard: queue {} backlog cap removed by {}: {}", queue, by, removed);
    return removed
        ? new Outcome(200, "cap_removed", "queue " + queue + " backlog cap removed", null)
        : new Outcome(200, "no_cap", "queue " + queue + " had no backlog cap", null);
  }

  /** The actions of a bulk request, each with the states it applies to. */
  enum BulkAction {
    RETRY(
        "retry",
        "retried",
        "Retry",
        EnumSet.of(
            JobState.SCHEDULED,
            JobState.RETRYABLE,
            JobState.COMPLETED,
            JobState.CANCELLED,
            JobState.DISCARDED)),
    RUN("run", "made available now", "Run now", EnumSet.of(JobState.SCHEDULED, JobState.RETRYABLE)),
    CANCEL(
        "cancel",
        "cancelled",
        "Cancel",
        EnumSet.of(JobState.SCHEDULED, JobState.AVAILABLE, JobState.RETRYABLE, JobState.RUNNING)),
    DELETE("delete", "deleted", "Delete", EnumSet.complementOf(EnumSet.of(JobState.RUNNING)));

    final String param;
    final String done;
    final String label;
    final Set<JobState> states;

    BulkAction(String param, String done, String label, Set<JobState> states) {
      this.param = param;
      this.done = done;
      this.label = label;
      this.states = states;
    }

    /** The action named {@code param}, or a 400 naming the four. */
    static BulkAction of(String param) {
      for (BulkAction a : values()) {
        if (a.param.equals(param)) {
          return a;
        }
      }
      throw BadRequest.of(
          "invalid parameter action: expected retry, run, cancel or delete, got "
              + (param == null ? "none" : Request.shown(param)));
    }

    /** The names of the states it applies to, e.g. {@code scheduled, retryable}. */
    String stateNames() {
      return String.join(", ", states.stream().map(JobState::dbName).toList());
    }
  }

  /** The jobs a bulk action would touch now, counted up to {@value #MAX_BULK} + 1. */
  long bulkCount(BulkAction action, JobBrowser.Filter filter) {
    requireBulkFilter(action, filter);
    return admin.count(filter, MAX_BULK + 1L);
  }

  /** What a bulk action did: jobs changed, and jobs read but left as they were. */
  record BulkOutcome(String action, long done, long skipped, String message) {}

  /**
   * Applies {@code action} to every job matching {@code filter}, at most {@value #MAX_BULK}: a page
   * of ids at a time, each page one batched statement of the operator API with the action's state
   * check, so a job that changed meanwhile is left as it is, and submitting again changes nothing
   * the first did (or takes the next {@value #MAX_BULK}). {@code expected} is the count the person
   * confirmed, named in the message when it differs.
   */
  BulkOutcome bulk(BulkAction action, JobBrowser.Filter filter, long expected, String by) {
    requireBulkFilter(action, filter);
    long done = 0;
    long read = 0;
    String cursor = null;
    do {
      JobBrowser.Page page = admin.page(filter, cursor, JobBrowser.MAX_PAGE_SIZE);
      List<Long> ids = new ArrayList<>(page.jobs().size());
      for (Job j : page.jobs()) {
        if (read + ids.size() < MAX_BULK) {
          ids.add(j.id());
        }
      }
      done += apply(action, ids, by);
      read += ids.size();
      cursor = page.next();
    } while (cursor != null && read < MAX_BULK);
    log.info("dashboard: bulk {} by {} of {}: {} of {} jobs", action.param, by, filter, done, read);
    return outcome(action, done, read - done, expected);
  }

  /**
   * Applies {@code action} to the jobs of {@code ids} (selected on a page), at most {@value
   * #MAX_BULK}.
   */
  BulkOutcome bulk(BulkAction action, List<Long> ids, String by) {
    if (ids.isEmpty() || ids.size() > MAX_BULK) {
      throw BadRequest.of(
          "invalid selection: expected 1.." + MAX_BULK + " job ids, got " + ids.size());
    }
    long done = apply(action, ids, by);
    log.info(
        "dashboard: bulk {} by {} of {} selected jobs: {}", action.param, by, ids.size(), done);
    return outcome(action, done, ids.size() - done, ids.size());
  }

  private long apply(BulkAction action, List<Long> ids, String by) {
    if (ids.isEmpty()) {
      return 0;
    }
    return switch (action) {
      case RETRY -> admin.retryAll(ids, by);
      case RUN -> admin.runNowAll(ids, by);
      case CANCEL -> admin.cancelAll(ids, by);
      case DELETE -> admin.deleteAll(ids);
    };
  }

  private static BulkOutcome outcome(BulkAction action, long done, long skipped, long expected) {
    String message =
        done
            + " jobs "
            + action.done
            + (skipped > 0 ? ", " + skipped + " left as they were (running, or changed)" : "")
            + (expected >= 0 && expected != done + skipped
                ? " (" + expected + " were confirmed)"
                : "");
    return new BulkOutcome(action.param, done, skipped, message);
  }

  private static void requireBulkFilter(BulkAction action, JobBrowser.Filter filter) {
    if (filter.state() == null || !action.states.contains(filter.state())) {
      throw BadRequest.of(
          "invalid bulk filter: "
              + action.param
              + " applies to jobs in state "
              + action.stateNames()
              + "; got "
              + (filter.state() == null
                  ? "no state (e.g. state=discarded)"
                  : filter.state().dbName()));
    }
  }
}
