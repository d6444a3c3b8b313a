package dev.baton.admin;

import dev.baton.BatonException;
import dev.baton.SchemaNotMigratedException;
import dev.baton.internal.db.BrowseStore;
import dev.baton.internal.db.Db;
import dev.baton.internal.db.SchemaName;
import dev.baton.internal.db.StatsStore;
import dev.baton.migrate.Migrator;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import javax.sql.DataSource;

/**
 * Per-queue figures for operators, such as {@code baton stats}: the {@code <schema>.queue_stats}
 * view (schema version 3; its columns are described in {@code docs/metrics.md}) and the number of
 * discarded jobs, read in one statement, so every figure is of the same snapshot.
 *
 * <pre>{@code
 * for (StatsAdmin.QueueStats q : new StatsAdmin(dataSource, "baton").queues()) {
 *   System.out.println(q.queue() + ": " + q.available() + " waiting, "
 *       + q.throughputPerSecond5m() + " jobs/s");
 * }
 * }</pre>
 *
 * <p>Cost: what one read of the view costs (the jobs live plus those finished in the last hour,
 * read through partial indexes), plus one row read per discarded job still kept (by their
 * retention, 7 days by default), found through {@code job_finalized_idx}; when discarded jobs are a
 * large share of the table the planner reads the table instead, which is then cheaper. Meant for a
 * person or a script asking now and then; a dashboard should scrape {@link
 * dev.baton.metrics.BatonMetrics} instead, which reads only the view, once per refresh for every
 * scrape. Thread-safe; does no I/O until used.
 */
public final class StatsAdmin {

  /** The window of {@link QueueStats#throughputPerSecond5m()}: 300 seconds. */
  public static final int WINDOW_5M_SECONDS = 300;

  /** The window of {@link QueueStats#throughputPerSecond1h()}: 3,600 seconds. */
  public static final int WINDOW_1H_SECONDS = 3_600;

  /** The version of the schema that created the view {@code queue_stats}: 3. */
  static final int STATS_VERSION = 3;

  /**
   * The figures of one queue, as of the read. Times are the database's.
   *
   * @param queue the queue
   * @param available jobs waiting to be claimed now (state {@code available}): the depth
   * @param oldestAvailableAgeSeconds seconds since the oldest available job became due; 0 when none
   *     is available
   * @param running jobs held by a worker (state {@code running}), on any node
   * @param scheduled jobs waiting for their run-at time (state {@code scheduled})
   * @param retryable jobs waiting for their retry (state {@code retryable})
   * @param discarded jobs discarded (attempts used up, or args that cannot be read) and still kept,
   *     until their retention passes: the ones to look at with {@code baton jobs list --state
   *     discarded}
   * @param completed5m jobs completed in the last 5 minutes
   * @param failed5m failed attempts in the last 5 minutes (handler exceptions, timeouts, rescues;
   *     not cancels)
   * @param failureShare5m {@code failed5m / (failed5m + completed5m)}, 0 when both are 0
   * @param completed1h jobs completed in the last hour
   * @param failed1h failed attempts in the last hour
   * @param failureShare1h {@code failed1h / (failed1h + completed1h)}, 0 when both are 0
   */
  public record QueueStats(
      String queue,
      long available,
      double oldestAvailableAgeSeconds,
      long running,
      long scheduled,
      long retryable,
      long discarded,
      long completed5m,
      long failed5m,
      double failureShare5m,
      long completed1h,
      long failed1h,
      double failureShare1h) {

    /**
     * Completions per second over the last 5 minutes ({@code completed5m / 300}), cluster-wide.
     * Counts the completed rows still kept and the completions that deleted their row ({@code
     * completedRetention} zero, counted in {@code job_completions}), so it reads low only while a
     * {@code completedRetention} above zero and under 5 minutes removes rows before the window
     * ends.
     */
    public double throughputPerSecond5m() {
      return (double) completed5m / WINDOW_5M_SECONDS;
    }

    /**
     * Completions per second over the last hour ({@code completed1h / 3600}), cluster-wide. Reads
     * low when {@code completedRetention} is above zero and under an hour.
     */
    public double throughputPerSecond1h() {
      return (double) completed1h / WINDOW_1H_SECONDS;
    }
  }

  /**
   * Completions of one queue per time bucket, oldest bucket first; read by {@link #completions}.
   *
   * @param queue the queue
   * @param bucket the length of each bucket
   * @param completed completions per bucket; the last one ends at the time of the read
   */
  public record QueueCompletions(String queue, Duration bucket, List<Long> completed) {

    /** Copies {@code completed}. */
    public QueueCompletions {
      completed = List.copyOf(completed);
    }
  }

  private final DataSource dataSource;
  private final SchemaName schema;
  private final StatsStore store;
  private final BrowseStore browse;

  /**
   * Statistics of the queues in {@code schema}. Does no I/O until used.
   *
   * @throws dev.baton.InvalidConfigException if the schema name is not valid
   */
  public StatsAdmin(DataSource dataSource, String schema) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.schema = SchemaName.of(schema);
    this.store = new StatsStore(this.schema);
    this.browse = new BrowseStore(this.schema);
  }

  /**
   * Completions per queue over the last {@code window}, in buckets of {@code bucket}, for a chart
   * of throughput: the completed rows still kept plus the completions that deleted their row, as in
   * {@link QueueStats#completed1h()}. Only queues with a completion in the window are listed, by
   * name. Reads the completed rows of the window through {@code job_finalized_idx}: the cost grows
   * with the completions in the window.
   *
   * @param window 1 second..1 day
   * @param bucket 1 second..{@code window}, whole seconds; the window is cut into {@code
   *     ceil(window / bucket)} buckets
   * @throws IllegalArgumentException if {@code window} or {@code bucket} is out of range
   */
  public List<QueueCompletions> completions(Duration window, Duration bucket) {
    Objects.requireNonNull(window, "window");
    Objects.requireNonNull(bucket, "bucket");
    long w = window.toSeconds();
    long b = bucket.toSeconds();
    if (w < 1 || w > 86_400 || b < 1 || b > w) {
      throw new IllegalArgumentException(
          "invalid completions window: window must be 1 s..1 day and bucket 1 s..window, got window "
              + window
              + " and bucket "
              + bucket);
    }
    int buckets = (int) ((w + b - 1) / b);
    List<BrowseStore.Completions> rows =
        Db.inTransaction(
            dataSource,
            "cannot read completions (schema=" + schema + ")",
            c -> browse.completions(c, w, b));
    Map<String, long[]> byQueue = new TreeMap<>();
    for (BrowseStore.Completions r : rows) {
      if (r.bucketsAgo() < buckets) {
        byQueue.computeIfAbsent(r.queue(), q -> new long[buckets])[buckets - 1 - r.bucketsAgo()] +=
            r.completed();
      }
    }
    List<QueueCompletions> out = new ArrayList<>(byQueue.size());
    byQueue.forEach(
        (q, counts) ->
            out.add(
                new QueueCompletions(
                    q, Duration.ofSeconds(b), Arrays.stream(counts).boxed().toList())));
    return out;
  }

  /**
   * A queue with a cluster-wide concurrency limit ({@link BatonAdmin#limitConcurrency}), as of the
   * read.
   *
   * @param queue the queue
   * @param limit the most of its jobs running at once across the cluster
   * @param running its jobs running now, on any node: the share of the limit in use
   * @param available its jobs waiting to be claimed
   */
  public record QueueLimit(String queue, int limit, long running, long available) {

    /**
     * Jobs waiting for the limit: the available jobs beyond what the limit leaves free now ({@code
     * available - max(0, limit - running)}, at least 0). They are claimed as running jobs end.
     */
    public long waitingForLimit() {
      return Math.max(0, available - Math.max(0, limit - running));
    }
  }

  /**
   * Every queue with a cluster-wide concurrency limit, by name; empty when none has one. One
   * statement: a read of the queue table, and two index counts per limited queue. {@link
   * #limitsInUse()} has every kind of limit.
   */
  public List<QueueLimit> limits() {
    List<QueueLimit> out = new ArrayList<>();
    for (StatsStore.QueueLimit l : store.queueLimits(dataSource, Duration.ofSeconds(30))) {
      if (l.concurrencyLimit() != null) {
        out.add(new QueueLimit(l.queue(), l.concurrencyLimit(), l.running(), l.available()));
      }
    }
    return out;
  }

  /**
   * Most available jobs of a queue limited per key that {@link #limitsInUse()} reads, in claim
   * order, to count those over their key's room: 10,000.
   */
  public static final int MAX_KEYED_SAMPLE = StatsStore.MAX_KEYED_SAMPLE;

  /** Most keys {@link LimitsInUse#busiestKeys()} names: 5. */
  public static final int MAX_KEYS_LISTED = StatsStore.MAX_KEYS_LISTED;

  /**
   * A key of a queue limited per key, with its running jobs.
   *
   * @param key the key (the text of the args field; {@code ""} for jobs without it)
   * @param running its jobs running now, on any node
   */
  public record KeyRunning(String key, long running) {}

  /**
   * A queue's limits of every kind and how much of each is in use, as of the read (every figure of
   * one snapshot). A limit the queue does not have is null.
   *
   * @param queue the queue
   * @param concurrencyLimit its cluster-wide concurrency limit ({@link
   *     BatonAdmin#limitConcurrency}); in use: {@code running}
   * @param keyField the args field whose text is a job's key, for its limit per key ({@link
   *     BatonAdmin#limitConcurrencyPerKey})
   * @param keyLimit its limit per key: the most jobs of one key running at once; in use: {@code
   *     keysRunning} and {@code keysAtLimit}
   * @param rateLimit its rate limit, the most starts in any window of {@code ratePeriod} ({@link
   *     BatonAdmin#limitRate}); in use: {@code startsInPeriod}
   * @param ratePeriod the window of its rate limit
   * @param running its jobs running now, on any node
   * @param available its jobs waiting to be claimed
   * @param keysRunning keys with running jobs; 0 without a limit per key
   * @param keysAtLimit keys with as many running jobs as the limit per key (or more, after it was
   *     lowered): their next jobs wait
   * @param startsInPeriod starts (claims) of the queue in the last {@code ratePeriod}, or with a
   *     rate per key those of its busiest key; 0 without a rate limit
   * @param waitingForLimits available jobs that the limits do not let a claim take now: the
   *     available jobs less the fewest any limit admits (the concurrency limit's free room, the
   *     rate limit's starts left, the jobs within their key's room). For a limit per key, counted
   *     over the first {@link #MAX_KEYED_SAMPLE} available jobs in claim order, so that the read is
   *     bounded however long the backlog.
   * @param busiestKeys the keys with the most running jobs, at most {@link #MAX_KEYS_LISTED}, most
   *     first (ties by key); empty without a limit per key
   * @param rateKeyField the args field whose text is a job's key for its rate limit per key ({@link
   *     BatonAdmin#limitRatePerKey}), or null when the rate holds for the queue as a whole; a rate
   *     per key is not counted in {@code waitingForLimits}
   */
  public record LimitsInUse(
      String queue,
      Integer concurrencyLimit,
      String keyField,
      Integer keyLimit,
      Integer rateLimit,
      Duration ratePeriod,
      long running,
      long available,
      long keysRunning,
      long keysAtLimit,
      long startsInPeriod,
      long waitingForLimits,
      List<KeyRunning> busiestKeys,
      String rateKeyField) {}

  /**
   * Every queue with a limit of any kind (queue-wide, per key, rate), by name, with how much of
   * each is in use and the jobs waiting for them; empty when none has one. One statement: a read of
   * the queue table, and per limited queue two index counts, a read of its running jobs if it is
   * limited per key (and of its first {@link #MAX_KEYED_SAMPLE} available ones), and a count of its
   * rate window's starts if it is rate limited.
   */
  public List<LimitsInUse> limitsInUse() {
    List<LimitsInUse> out = new ArrayList<>();
    for (StatsStore.QueueLimit l : store.queueLimits(dataSource, Duration.ofSeconds(30))) {
      out.add(
          new LimitsInUse(
              l.queue(),
              l.concurrencyLimit(),
              l.keyField(),
              l.keyLimit(),
              l.rateLimit(),
              l.ratePeriodMillis() == null ? null : Duration.ofMillis(l.ratePeriodMillis()),
              l.running(),
              l.available(),
              l.keysRunning(),
              l.keysAtLimit(),
              l.starts(),
              l.waitingForLimits(),
              busiest(l),
              l.rateKeyField()));
    }
    return out;
  }

  private static List<KeyRunning> busiest(StatsStore.QueueLimit l) {
    List<KeyRunning> out = new ArrayList<>();
    for (int i = 0; i < l.busiestKeys().size(); i++) {
      out.add(new KeyRunning(l.busiestKeys().get(i), l.busiestRunning().get(i)));
    }
    return List.copyOf(out);
  }

  /** Most groups {@link #failures} returns: 500. */
  public static final int MAX_FAILURE_GROUPS = 500;

  /**
   * What a group of failed attempts shares.
   *
   * @param queue the queue
   * @param kind the kind
   * @param error the error entries' {@code error}: an exception class, or a label such as {@code
   *     node_gone} for a rescue
   * @param rootCause the class of the innermost {@code Caused by:} of the trace, or null
   */
  public record FailureKey(String queue, String kind, String error, String rootCause) {

    /**
     * Whether these are rescues (the node or its lease was lost; no handler failed), not handler
     * failures. See {@link dev.baton.JobError#isRescue(String)}.
     */
    public boolean rescue() {
      return dev.baton.JobError.isRescue(error);
    }
  }

  /**
   * A group of failed attempts in a window.
   *
   * @param key what they share
   * @param count how many in the window
   * @param count5m how many in its last 5 minutes
   * @param firstAt the first one's time
   * @param lastAt the last one's time
   * @param last the job of the last one, and its message
   */
  public record FailureGroup(
      FailureKey key,
      long count,
      long count5m,
      Instant firstAt,
      Instant lastAt,
      LastFailure last) {}

  /**
   * The latest failed attempt of a group.
   *
   * @param jobId its job
   * @param message its message
   */
  public record LastFailure(long jobId, String message) {}

  /**
   * The failed attempts of the last {@code window} (handler failures, timeouts and rescues; not
   * cancels), grouped by queue, kind, error and root cause, the largest groups first: what is
   * failing, since when, and a job to look at. Reads the error entries of the jobs that ended or
   * were retried in the window and of the running ones, as {@link #queues()} does: the cost grows
   * with those jobs, not with the table.
   *
   * @param window 1 second..1 day
   * @param limit most groups, 1..{@value #MAX_FAILURE_GROUPS}
   * @throws IllegalArgumentException if {@code window} or {@code limit} is out of range
   */
  public List<FailureGroup> failures(Duration window, int limit) {
    Objects.requireNonNull(window, "window");
    long w = window.toSeconds();
    if (w < 1 || w > 86_400 || limit < 1 || limit > MAX_FAILURE_GROUPS) {
      throw new IllegalArgumentException(
          "invalid failures window: window must be 1 s..1 day and limit 1.."
              + MAX_FAILURE_GROUPS
              + ", got window "
              + window
              + " and limit "
              + limit);
    }
    List<BrowseStore.FailureRow> rows =
        Db.inTransaction(
            dataSource,
            "cannot read failures (schema=" + schema + ")",
            c -> browse.failures(c, w, limit));
    List<FailureGroup> out = new ArrayList<>(rows.size());
    for (BrowseStore.FailureRow r : rows) {
      out.add(
          new FailureGroup(
              new FailureKey(r.queue(), r.kind(), r.error(), r.rootCause()),
              r.count(),
              r.count5m(),
              micros(r.firstMicros()),
              micros(r.lastMicros()),
              new LastFailure(r.lastJobId(), r.lastMessage())));
    }
    return out;
  }

  /** Most completions {@link #latencies} samples: 100,000. */
  public static final int MAX_LATENCY_SAMPLE = 100_000;

  /**
   * Percentiles of a time in milliseconds.
   *
   * @param p50 the median
   * @param p95 the 95th percentile
   * @param p99 the 99th percentile
   */
  public record Percentiles(double p50, double p95, double p99) {}

  /**
   * Wait and run times of one queue and kind.
   *
   * @param queue the queue
   * @param kind the kind
   * @param sampled the completions the percentiles are of
   * @param waitTime from due ({@code scheduled_at} of the completing attempt) to its start
   * @param runTime from the completing attempt's start to its end
   */
  public record Latency(
      String queue, String kind, long sampled, Percentiles waitTime, Percentiles runTime) {}

  /**
   * Wait and run time percentiles per queue and kind, of the latest {@code sample} completions of
   * the last {@code window} (of the completed rows still kept: a {@code completedRetention} of zero
   * keeps none). Reads at most {@code sample} rows, newest first, through {@code
   * job_finalized_idx}; nothing is stored for it and nothing is written per job.
   *
   * @param window 1 second..7 days
   * @param sample 1..{@value #MAX_LATENCY_SAMPLE}
   * @throws IllegalArgumentException if either is out of range
   */
  public List<Latency> latencies(Duration window, int sample) {
    Objects.requireNonNull(window, "window");
    long w = window.toSeconds();
    if (w < 1 || w > 7 * 86_400 || sample < 1 || sample > MAX_LATENCY_SAMPLE) {
      throw new IllegalArgumentException(
          "invalid latencies window: window must be 1 s..7 days and sample 1.."
              + MAX_LATENCY_SAMPLE
              + ", got window "
              + window
              + " and sample "
              + sample);
    }
    List<BrowseStore.LatencyRow> rows =
        Db.inTransaction(
            dataSource,
            "cannot read wait and run times (schema=" + schema + ")",
            c -> browse.latencies(c, w, sample));
    List<Latency> out = new ArrayList<>(rows.size());
    for (BrowseStore.LatencyRow r : rows) {
      out.add(
          new Latency(
              r.queue(),
              r.kind(),
              r.sampled(),
              new Percentiles(r.waitMs()[0], r.waitMs()[1], r.waitMs()[2]),
              new Percentiles(r.runMs()[0], r.runMs()[1], r.runMs()[2])));
    }
    return out;
  }

  /** The longest range {@link #history} reads: 7 days, as long as the history is kept. */
  public static final Duration MAX_HISTORY_RANGE = Duration.ofDays(7);

  /** The most buckets {@link #history} cuts a range into: 1,440. */
  public static final int MAX_HISTORY_BUCKETS = 1_440;

  /**
   * The jobs that finished in one bucket of a queue's history.
   *
   * @param completed jobs completed
   * @param failed jobs discarded after a failed attempt (the handler threw or ran past its timeout,
   *     or the args could not be read)
   * @param rescued jobs discarded after a rescue (their node died or lost its lease) at the rescue
   *     limit: no handler failed
   * @param cancelled jobs cancelled
   */
  public record Finished(long completed, long failed, long rescued, long cancelled) {}

  /**
   * The jobs of one queue that finished in each bucket of a range, oldest bucket first; read by
   * {@link #history}.
   *
   * @param queue the queue
   * @param bucket the length of each bucket, whole minutes
   * @param end the end of the last bucket: the end of the current minute
   * @param buckets one entry per bucket, oldest first
   */
  public record QueueHistory(String queue, Duration bucket, Instant end, List<Finished> buckets) {

    /** Copies {@code buckets}. */
    public QueueHistory {
      buckets = List.copyOf(buckets);
    }

    /** The jobs completed per bucket, oldest first. */
    public List<Long> completed() {
      return buckets.stream().map(Finished::completed).toList();
    }

    /** The jobs discarded after a failed attempt per bucket, oldest first. */
    public List<Long> failed() {
      return buckets.stream().map(Finished::failed).toList();
    }

    /** The jobs discarded after a rescue per bucket, oldest first. */
    public List<Long> rescued() {
      return buckets.stream().map(Finished::rescued).toList();
    }

    /** The jobs cancelled per bucket, oldest first. */
    public List<Long> cancelled() {
      return buckets.stream().map(Finished::cancelled).toList();
    }
  }

  /**
   * The jobs that finished per queue over the last {@code range}, in buckets of {@code bucket}:
   * completed, failed, rescued and cancelled. Read from {@code job_stat_minute} (schema version
   * 12), which the leader fills every minute from the rows finalized since its last pass, keeps for
   * 7 days, and which holds each finished job once, also the completions that deleted their row
   * ({@code completedRetention} zero). So the last minute or two may not be counted yet, and jobs
   * finished while no leader ran are counted when one runs again. Only queues with a finished job
   * in the range are listed, by name. Reads one row per minute, queue and kind of the range, by the
   * table's key.
   *
   * @param range whole minutes, 1 minute..{@link #MAX_HISTORY_RANGE}
   * @param bucket whole minutes, 1 minute..{@code range}, at most {@value #MAX_HISTORY_BUCKETS}
   *     buckets; the range is cut into {@code ceil(range / bucket)} buckets ending with the current
   *     minute
   * @throws IllegalArgumentException if {@code range} or {@code bucket} is out of range
   */
  public List<QueueHistory> history(Duration range, Duration bucket) {
    Objects.requireNonNull(range, "range");
    Objects.requireNonNull(bucket, "bucket");
    long r = range.toSeconds();
    long b = bucket.toSeconds();
    if (r < 60
        || r > MAX_HISTORY_RANGE.toSeconds()
        || r % 60 != 0
        || b < 60
        || b % 60 != 0
        || b > r
        || (r + b - 1) / b > MAX_HISTORY_BUCKETS) {
      throw new IllegalArgumentException(
          "invalid history range: range must be whole minutes from 1 minute to 7 days, and bucket"
              + " whole minutes from 1 minute to the range, at most "
              + MAX_HISTORY_BUCKETS
              + " buckets; got range "
              + range
              + " and bucket "
              + bucket);
    }
    int buckets = (int) ((r + b - 1) / b);
    List<BrowseStore.HistoryRow> rows =
        Db.inTransaction(
            dataSource,
            "cannot read the history of finished jobs (schema=" + schema + ")",
            c -> browse.history(c, r, b));
    Map<String, long[][]> byQueue = new TreeMap<>();
    Instant end = null;
    for (BrowseStore.HistoryRow row : rows) {
      end = row.currentMinute().plusSeconds(60);
      if (row.bucketsAgo() < 0 || row.bucketsAgo() >= buckets) {
        continue;
      }
      long[][] q = byQueue.computeIfAbsent(row.queue(), k -> new long[buckets][4]);
      long[] at = q[buckets - 1 - row.bucketsAgo()];
      for (int i = 0; i < at.length; i++) {
        at[i] += row.counts()[i];
      }
    }
    List<QueueHistory> out = new ArrayList<>(byQueue.size());
    for (Map.Entry<String, long[][]> e : byQueue.entrySet()) {
      List<Finished> list = new ArrayList<>(buckets);
      for (long[] c : e.getValue()) {
        list.add(new Finished(c[0], c[1], c[2], c[3]));
      }
      out.add(new QueueHistory(e.getKey(), bucket, end, list));
    }
    return out;
  }

  /** The most kinds {@link #kinds} returns: 500. */
  public static final int MAX_KINDS = 500;

  /**
   * The kinds of which a job finished in the last day, of {@code queue} (null: of any queue), by
   * name, at most {@value #MAX_KINDS}: known kinds for a picker. Read from the history ({@code
   * job_stat_minute}), one row per minute, queue and kind of the day; empty on a schema whose jobs
   * all finished earlier, or whose leader has not yet counted them.
   */
  public List<String> kinds(String queue) {
    return Db.inTransaction(
        dataSource,
        "cannot read the known kinds (schema=" + schema + ")",
        c -> browse.kinds(c, queue, MAX_KINDS));
  }

  private static Instant micros(long micros) {
    return Instant.EPOCH.plus(micros, ChronoUnit.MICROS);
  }

  /** The statement {@link #queues()} runs (for tests that check its plan). */
  String sql() {
    return store.queueStatsWithDiscardedSql();
  }

  /** The schema this admin reads. */
  public String schema() {
    return schema.name();
  }

  /**
   * One entry per queue that has jobs waiting, running or discarded, or attempts that ended in the
   * last hour, by queue name; empty when there is none.
   *
   * @throws SchemaNotMigratedException if the schema has no Baton tables, or is older than version
   *     3 (no {@code queue_stats} view)
   */
  public List<QueueStats> queues() {
    try {
      return store
          .queueStatsWithDiscarded(
              dataSource, "cannot read queue statistics (schema=" + schema + ")")
          .stream()
          .map(
              q ->
                  new QueueStats(
                      q.queue(),
                      q.available(),
                      q.oldestAvailableAgeSeconds(),
                      q.running(),
                      q.scheduled(),
                      q.retryable(),
                      q.discarded(),
                      q.completed5m(),
                      q.failed5m(),
                      q.failureShare5m(),
                      q.completed1h(),
                      q.failed1h(),
                      q.failureShare1h()))
          .toList();
    } catch (BatonException e) {
      throw notMigratedOr(e);
    }
  }

  // A missing relation or schema is told apart from other failures by asking the migration table
  // (only on this failure path): no tables, or a version without the view.
  private RuntimeException notMigratedOr(BatonException e) {
    String state = e.getCause() instanceof SQLException sql ? sql.getSQLState() : null;
    if (!"42P01".equals(state) && !"3F000".equals(state)) {
      return e;
    }
    int version;
    try {
      version = new Migrator(dataSource, schema.name()).currentVersion();
    } catch (RuntimeException again) {
      e.addSuppressed(again);
      return e;
    }
    if (version == 0) {
      return new SchemaNotMigratedException(schema.name(), "it has no Baton tables");
    }
    if (version < STATS_VERSION) {
      return new SchemaNotMigratedException(
          schema.name(),
          "it is at version "
              + version
              + " and the queue_stats view needs version "
              + STATS_VERSION);
    }
    return e;
  }
}
