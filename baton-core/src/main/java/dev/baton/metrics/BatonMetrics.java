package dev.baton.metrics;

import dev.baton.Baton;
import dev.baton.InvalidConfigException;
import dev.baton.internal.ClientInternals;
import dev.baton.internal.db.BacklogCapStore;
import dev.baton.internal.db.ClaimedJob;
import dev.baton.internal.db.Db;
import dev.baton.internal.db.SchemaName;
import dev.baton.internal.db.StatsStore;
import dev.baton.internal.held.AttemptEnd;
import dev.baton.internal.held.JobListener;
import dev.baton.internal.held.NodeCounters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Binds the meters of one {@link Baton} client to a Micrometer registry. Every meter is listed,
 * with how it is computed and what it costs, in {@code docs/metrics.md}.
 *
 * <pre>{@code
 * BatonMetrics metrics = new BatonMetrics(baton);
 * metrics.bindTo(registry);   // e.g. a PrometheusMeterRegistry
 * ...
 * metrics.close();            // removes the meters and stops the refresh thread
 * }</pre>
 *
 * <ul>
 *   <li>Cluster-wide queue gauges (depth per state, age of the oldest available job, failure share
 *       over 5 minutes and 1 hour) are read from the {@code <schema>.queue_stats} view by one query
 *       every {@link Builder#refreshInterval refreshInterval} on a daemon thread, {@code
 *       baton-metrics}, and served from that snapshot: a scrape never queries the database.
 *   <li>Node meters come from this client: its outcome counters, its running handlers, whether it
 *       leads, and two timers recorded by its workers (pickup latency and run time per queue and
 *       kind).
 * </ul>
 *
 * <p>Thread-safe. Binds to one registry once (use a {@code CompositeMeterRegistry} for several);
 * one binder per client. A failed read of the view keeps the last snapshot and logs a warning; the
 * gauge {@code baton.stats.age} tells how old the snapshot is. Needs {@code micrometer-core} on the
 * classpath (an optional dependency of Baton) and, for the queue gauges, schema version 3 and
 * {@code SELECT} on the view.
 */
public final class BatonMetrics implements MeterBinder, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(BatonMetrics.class);

  /** How often the queue gauges are read from the database when not set: every 5 seconds. */
  public static final Duration DEFAULT_REFRESH_INTERVAL = Duration.ofSeconds(5);

  /** How long one read of the view may take before it is cancelled: 30 seconds. */
  static final Duration QUERY_TIMEOUT = Duration.ofSeconds(30);

  private static final String[] STATES = {"available", "scheduled", "retryable", "running"};

  private final Baton baton;
  private final Duration refreshInterval;
  private final boolean queueStats;
  private final boolean percentileHistograms;
  private final DataSource dataSource;
  private final NodeCounters counters;
  private final StatsStore store;
  private final BacklogCapStore caps;
  private final String node;
  private final Hook hook = new Hook();

  private volatile Map<String, StatsStore.QueueStats> snapshot = Map.of();
  private volatile Map<String, Integer> capSnapshot = Map.of();
  private final Set<String> capsBound = ConcurrentHashMap.newKeySet();
  private volatile Map<String, StatsStore.QueueLimit> limitSnapshot = Map.of();
  private final Set<String> keyLimitsBound = ConcurrentHashMap.newKeySet();
  private final Set<String> rateLimitsBound = ConcurrentHashMap.newKeySet();
  private volatile long lastReadNanos; // System.nanoTime() of the last good read; 0 before it
  private volatile boolean failing;
  private final Set<String> queuesBound = ConcurrentHashMap.newKeySet();
  private final ConcurrentLinkedQueue<Meter> meters = new ConcurrentLinkedQueue<>();
  private final ConcurrentHashMap<String, ConcurrentHashMap<String, Timer>> pickupTimers =
      new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, ConcurrentHashMap<String, Timer>> runTimers =
      new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, ConcurrentHashMap<String, Counter[]>> attemptCounters =
      new ConcurrentHashMap<>();
  private volatile MeterRegistry registry;
  private ScheduledThreadPoolExecutor refresher; // guarded by this
  private final Object refreshLock = new Object(); // taken before this, never after
  private volatile boolean closed; // written under this

  /** A binder for {@code baton} with every default: queue gauges refreshed every 5 s. */
  public BatonMetrics(Baton baton) {
    this(builder(baton));
  }

  private BatonMetrics(Builder b) {
    this.baton = b.baton;
    this.refreshInterval = b.refreshInterval;
    this.queueStats = b.queueStats;
    this.percentileHistograms = b.percentileHistograms;
    ClientInternals internals = baton.internals();
    this.dataSource = internals.pool();
    this.counters = internals.counters();
    this.store = new StatsStore(SchemaName.of(baton.config().schema()));
    this.caps = new BacklogCapStore(SchemaName.of(baton.config().schema()));
    this.node = baton.nodeId();
  }

  /** A builder of a binder for {@code baton}. */
  public static Builder builder(Baton baton) {
    return new Builder(baton);
  }

  /**
   * Registers every meter with {@code registry}, starts the timers' hook in this client's workers
   * and, unless the queue gauges are off, the {@code baton-metrics} thread, whose first read of the
   * view runs at once. Until that read succeeds the queue gauges read NaN.
   *
   * @throws IllegalStateException if this binder is already bound or closed, or another binder is
   *     bound to the same client
   */
  @Override
  public void bindTo(MeterRegistry registry) {
    Objects.requireNonNull(registry, "registry");
    synchronized (this) {
      if (closed || this.registry != null) {
        throw new IllegalStateException(
            "cannot bind Baton metrics (node=" + node + "): already bound or closed");
      }
      if (counters.listener != null) {
        throw new IllegalStateException(
            "cannot bind Baton metrics (node="
                + node
                + "): another BatonMetrics is bound to this client; close it first");
      }
      this.registry = registry;
      bindNodeMeters(registry);
      counters.listener = hook;
      if (queueStats) {
        for (String q : baton.config().queues().keySet()) {
          bindQueue(q);
        }
        gauge(
            Gauge.builder("baton.stats.age", this, BatonMetrics::statsAgeSeconds)
                .description("Seconds since the queue gauges were last read from queue_stats")
                .baseUnit("seconds")
                .tag("node", node));
        refresher = new ScheduledThreadPoolExecutor(1, BatonMetrics::newThread);
        refresher.scheduleWithFixedDelay(
            this::refreshQuietly, 0, refreshInterval.toNanos(), TimeUnit.NANOSECONDS);
      }
    }
  }

  /**
   * Reads the {@code queue_stats} view now and updates the queue gauges (the refresh thread does
   * this every {@code refreshInterval}); registers gauges for queues seen for the first time. Runs
   * one query on the calling thread.
   *
   * @throws dev.baton.BatonException if the view cannot be read
   */
  public void refresh() {
    // One read at a time, each published before the next begins: the refresh thread's read and a
    // caller's run at once (the thread's first read starts when bindTo returns), and an older read
    // published after a newer one would put its stale figures back.
    synchronized (refreshLock) {
      readAndPublish();
    }
  }

  private void readAndPublish() {
    List<StatsStore.QueueStats> rows = store.queueStats(dataSource, QUERY_TIMEOUT);
    Map<String, StatsStore.QueueStats> next = new ConcurrentHashMap<>();
    for (StatsStore.QueueStats r : rows) {
      next.put(r.queue(), r);
    }
    Map<String, Integer> nextCaps =
        Db.inTransaction(dataSource, "cannot read the backlog caps", caps::caps);
    Map<String, StatsStore.QueueLimit> nextLimits = new ConcurrentHashMap<>();
    for (StatsStore.QueueLimit l : store.queueLimits(dataSource, QUERY_TIMEOUT)) {
      nextLimits.put(l.queue(), l);
    }
    snapshot = next;
    capSnapshot = nextCaps;
    limitSnapshot = nextLimits;
    lastReadNanos = System.nanoTime();
    if (registry != null && !closed) {
      for (String q : next.keySet()) {
        bindQueue(q);
      }
      for (String q : nextCaps.keySet()) {
        bindCap(q);
      }
      for (StatsStore.QueueLimit l : nextLimits.values()) {
        bindQueue(l.queue());
        if (l.keyLimit() != null) {
          bindKeyLimit(l.queue());
        }
        if (l.rateLimit() != null) {
          bindRateLimit(l.queue());
        }
      }
    }
  }

  private void refreshQuietly() {
    try {
      refresh();
      if (failing) {
        failing = false;
        log.info("reading queue statistics works again (node={})", node);
      }
    } catch (RuntimeException e) {
      if (!failing) {
        failing = true;
        log.warn(
            "cannot read queue statistics (node={}); the queue gauges keep their last values,"
                + " see baton.stats.age",
            node,
            e);
      } else {
        log.debug("cannot read queue statistics (node={})", node, e);
      }
    }
  }

  /**
   * Stops the refresh thread, removes this binder's meters from the registry and its hook from the
   * client. Closing twice is fine.
   */
  @Override
  public void close() {
    ScheduledThreadPoolExecutor r;
    MeterRegistry reg;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      r = refresher;
      reg = registry;
    }
    if (counters.listener == hook) {
      counters.listener = null;
    }
    if (r != null) {
      r.shutdownNow();
    }
    if (reg != null) {
      Meter m;
      while ((m = meters.poll()) != null) {
        reg.remove(m);
      }
    }
  }

  private void bindNodeMeters(MeterRegistry reg) {
    counter(reg, "baton.jobs.claimed", counters.claimed, "Jobs this node claimed");
    counter(reg, "baton.jobs.completed", counters.completed, "Completions this node wrote");
    counter(
        reg,
        "baton.jobs.retried",
        counters.retried,
        "Failed attempts this node wrote as retryable");
    counter(reg, "baton.jobs.discarded", counters.discarded, "Jobs this node wrote as discarded");
    counter(reg, "baton.jobs.cancelled", counters.cancelled, "Jobs this node wrote as cancelled");
    counter(reg, "baton.jobs.snoozed", counters.snoozed, "Snoozes this node wrote");
    counter(
        reg,
        "baton.jobs.fenced",
        counters.fenced,
        "Results this node dropped because it no longer held the job");
    counter(
        reg,
        "baton.jobs.leases.lost",
        counters.leasesLost,
        "Handlers this node interrupted because their job was lost");
    counter(
        reg, "baton.jobs.rescued", counters.rescued, "Jobs this node's rescuer returned (leader)");
    counter(
        reg,
        "baton.jobs.handed.back",
        counters.handedBack,
        "Jobs this node handed back at a graceful stop or after waiting in its buffer");
    counter(
        reg,
        "baton.enqueues.refused",
        counters.refusedEnqueues,
        "Enqueue calls of this client refused by a queue's backlog cap");
    gauge(
        Gauge.builder("baton.jobs.running", baton, b -> b.counters().running())
            .description("Handlers running on this node")
            .tag("node", node));
    gauge(
        Gauge.builder("baton.leader", baton, b -> b.isLeader() ? 1 : 0)
            .description("1 while this node leads the cluster (runs maintenance), else 0")
            .tag("node", node));
  }

  private void counter(MeterRegistry reg, String name, LongAdder adder, String description) {
    meters.add(
        FunctionCounter.builder(name, adder, LongAdder::sum)
            .description(description)
            .tag("node", node)
            .register(reg));
  }

  private void gauge(Gauge.Builder<?> b) {
    meters.add(b.strongReference(true).register(registry));
  }

  // Synchronized: refresh() runs on the refresh thread and on callers' threads; a caller that
  // sees a queue the other thread is still registering must wait until its gauges exist (a CI run
  // once found none right after refresh() returned), and a close() must not race a registration.
  private synchronized void bindQueue(String queue) {
    if (closed || !queuesBound.add(queue)) {
      return;
    }
    for (String state : STATES) {
      gauge(
          Gauge.builder("baton.queue.depth", this, queueValue(queue, s -> count(s, state)))
              .description("Jobs of the queue in the state, cluster-wide, from queue_stats")
              .tags("queue", queue, "state", state));
    }
    gauge(
        Gauge.builder(
                "baton.queue.oldest.available.age",
                this,
                queueValue(queue, StatsStore.QueueStats::oldestAvailableAgeSeconds))
            .description("Seconds since the queue's oldest available job became due; 0 if none")
            .baseUnit("seconds")
            .tag("queue", queue));
    gauge(
        Gauge.builder(
                "baton.queue.failure.share",
                this,
                queueValue(queue, StatsStore.QueueStats::failureShare5m))
            .description("Failed attempts / attempts that ended in the window, from queue_stats")
            .tags("queue", queue, "window", "5m"));
    gauge(
        Gauge.builder(
                "baton.queue.failure.share",
                this,
                queueValue(queue, StatsStore.QueueStats::failureShare1h))
            .description("Failed attempts / attempts that ended in the window, from queue_stats")
            .tags("queue", queue, "window", "1h"));
    bindLimitGauges(queue);
  }

  private void bindLimitGauges(String queue) {
    gauge(
        Gauge.builder(
                "baton.queue.limit", this, limitValue(queue, l -> l.concurrencyLimit(), Double.NaN))
            .description(
                "The queue's cluster-wide concurrency limit; NaN when it has none (see"
                    + " baton.queue.depth state=running for the share in use)")
            .tag("queue", queue));
    gauge(
        Gauge.builder(
                "baton.queue.limit.waiting",
                this,
                limitValue(queue, StatsStore.QueueLimit::waitingForLimits, 0))
            .description(
                "Available jobs of the queue that its limits (concurrency, per key, rate) do not"
                    + " let a claim take now; 0 without a limit")
            .tag("queue", queue));
  }

  // A queue's limit per key, registered when a read first finds one; NaN once it has none.
  private synchronized void bindKeyLimit(String queue) {
    if (closed || !keyLimitsBound.add(queue)) {
      return;
    }
    gauge(
        Gauge.builder(
                "baton.queue.limit.key", this, limitValue(queue, l -> l.keyLimit(), Double.NaN))
            .description(
                "Most jobs of one key of the queue running at once across the cluster; NaN when"
                    + " it has no limit per key")
            .tag("queue", queue));
    gauge(
        Gauge.builder(
                "baton.queue.limit.key.running",
                this,
                keyValue(queue, StatsStore.QueueLimit::keysRunning))
            .description("Keys of the queue with running jobs; NaN without a limit per key")
            .tag("queue", queue));
    gauge(
        Gauge.builder(
                "baton.queue.limit.key.full",
                this,
                keyValue(queue, StatsStore.QueueLimit::keysAtLimit))
            .description(
                "Keys of the queue with as many running jobs as its limit per key; NaN without one")
            .tag("queue", queue));
  }

  // A queue's rate limit, registered when a read first finds one; NaN once it has none.
  private synchronized void bindRateLimit(String queue) {
    if (closed || !rateLimitsBound.add(queue)) {
      return;
    }
    gauge(
        Gauge.builder(
                "baton.queue.limit.rate", this, limitValue(queue, l -> l.rateLimit(), Double.NaN))
            .description(
                "Most starts of the queue in any window of baton.queue.limit.rate.period; NaN"
                    + " when it has no rate limit")
            .tag("queue", queue));
    gauge(
        Gauge.builder(
                "baton.queue.limit.rate.period",
                this,
                limitValue(
                    queue,
                    l -> l.ratePeriodMillis() == null ? null : l.ratePeriodMillis() / 1000.0,
                    Double.NaN))
            .description("The window of the queue's rate limit; NaN when it has none")
            .baseUnit("seconds")
            .tag("queue", queue));
    gauge(
        Gauge.builder(
                "baton.queue.limit.rate.used",
                this,
                limitValue(
                    queue, l -> l.rateLimit() == null ? null : (double) l.starts(), Double.NaN))
            .description(
                "Starts of the queue in the last period of its rate limit; NaN when it has none")
            .tag("queue", queue));
  }

  /**
   * A gauge function reading {@code queue}'s limits in the last snapshot: NaN before the first
   * read, {@code none} when the queue has no limit or {@code field} gives null.
   */
  private static ToDoubleFunction<BatonMetrics> limitValue(
      String queue, Function<StatsStore.QueueLimit, Number> field, double none) {
    return m -> {
      if (m.lastReadNanos == 0) {
        return Double.NaN;
      }
      StatsStore.QueueLimit l = m.limitSnapshot.get(queue);
      Number v = l == null ? null : field.apply(l);
      return v == null ? none : v.doubleValue();
    };
  }

  private static ToDoubleFunction<BatonMetrics> keyValue(
      String queue, ToDoubleFunction<StatsStore.QueueLimit> field) {
    return limitValue(queue, l -> l.keyLimit() == null ? null : field.applyAsDouble(l), Double.NaN);
  }

  // A queue's backlog cap, registered when a read first finds one; NaN once it has none.
  private synchronized void bindCap(String queue) {
    if (closed || !capsBound.add(queue)) {
      return;
    }
    gauge(
        Gauge.builder(
                "baton.queue.backlog.cap",
                this,
                m -> {
                  Integer cap = m.capSnapshot.get(queue);
                  return cap == null ? Double.NaN : cap;
                })
            .description(
                "Most jobs that may wait (available, scheduled, retryable) in the queue; NaN when"
                    + " it has no cap")
            .tag("queue", queue));
  }

  private static double count(StatsStore.QueueStats s, String state) {
    switch (state) {
      case "available":
        return s.available();
      case "scheduled":
        return s.scheduled();
      case "retryable":
        return s.retryable();
      default:
        return s.running();
    }
  }

  /**
   * A gauge function reading {@code queue}'s row of the last snapshot: NaN before the first read, 0
   * when the queue had no row (nothing live, nothing ended in the last hour).
   */
  private static ToDoubleFunction<BatonMetrics> queueValue(
      String queue, ToDoubleFunction<StatsStore.QueueStats> field) {
    return m -> {
      if (m.lastReadNanos == 0) {
        return Double.NaN;
      }
      StatsStore.QueueStats s = m.snapshot.get(queue);
      return s == null ? 0 : field.applyAsDouble(s);
    };
  }

  private double statsAgeSeconds() {
    long at = lastReadNanos;
    return at == 0 ? Double.NaN : (System.nanoTime() - at) / 1e9;
  }

  private Timer timer(
      ConcurrentHashMap<String, ConcurrentHashMap<String, Timer>> timers,
      String name,
      String description,
      ClaimedJob job) {
    ConcurrentHashMap<String, Timer> byKind = timers.get(job.queue());
    Timer t = byKind == null ? null : byKind.get(job.kind());
    if (t != null) {
      return t; // the hot path: two lookups, no allocation
    }
    MeterRegistry reg = registry;
    Timer.Builder builder =
        Timer.builder(name)
            .description(description)
            .tags("queue", job.queue(), "kind", job.kind(), "node", node);
    if (percentileHistograms) {
      builder
          .publishPercentileHistogram()
          .minimumExpectedValue(Duration.ofMillis(1))
          .maximumExpectedValue(Duration.ofHours(1));
    }
    Timer created = builder.register(reg);
    t =
        timers
            .computeIfAbsent(job.queue(), q -> new ConcurrentHashMap<>())
            .putIfAbsent(job.kind(), created);
    if (t == null) {
      meters.add(created);
      t = created;
    }
    return t;
  }

  /**
   * The attempt counters of {@code job}'s queue and kind, one per {@link AttemptEnd}, registered
   * together with the first attempt of the pair: the kinds are the client's registered handlers'.
   */
  private Counter[] attempts(ClaimedJob job) {
    ConcurrentHashMap<String, Counter[]> byKind = attemptCounters.get(job.queue());
    Counter[] c = byKind == null ? null : byKind.get(job.kind());
    if (c != null) {
      return c; // the hot path: two lookups, no allocation
    }
    MeterRegistry reg = registry;
    AttemptEnd[] ends = AttemptEnd.values();
    Counter[] created = new Counter[ends.length];
    for (AttemptEnd end : ends) {
      created[end.ordinal()] =
          Counter.builder("baton.job.attempts")
              .description("Attempts this node's handlers ended, by how they ended")
              .tags("queue", job.queue(), "kind", job.kind(), "outcome", end.tag(), "node", node)
              .register(reg);
    }
    c =
        attemptCounters
            .computeIfAbsent(job.queue(), q -> new ConcurrentHashMap<>())
            .putIfAbsent(job.kind(), created);
    if (c == null) {
      meters.addAll(List.of(created));
      c = created;
    }
    return c;
  }

  private static Thread newThread(Runnable r) {
    Thread t = new Thread(r, "baton-metrics");
    t.setDaemon(true);
    return t;
  }

  /** Records the timers; called on worker threads, never throws. */
  private final class Hook implements JobListener {
    @Override
    public void handlerStarting(ClaimedJob job, long pickupNanos) {
      try {
        timer(
                pickupTimers,
                "baton.job.pickup.latency",
                "From the job becoming due to its handler starting on this node",
                job)
            .record(Math.max(0, pickupNanos), TimeUnit.NANOSECONDS);
      } catch (RuntimeException e) {
        log.debug("cannot record pickup latency of job {}", job.id(), e);
      }
    }

    @Override
    public void handlerReturned(ClaimedJob job, long runNanos, AttemptEnd end) {
      try {
        timer(runTimers, "baton.job.run.time", "From handler start to its return or throw", job)
            .record(runNanos, TimeUnit.NANOSECONDS);
        attempts(job)[end.ordinal()].increment();
      } catch (RuntimeException e) {
        log.debug("cannot record run time of job {}", job.id(), e);
      }
    }
  }

  /** Builds a {@link BatonMetrics}. Not thread-safe. */
  public static final class Builder {
    private final Baton baton;
    private Duration refreshInterval = DEFAULT_REFRESH_INTERVAL;
    private boolean queueStats = true;
    private boolean percentileHistograms;

    private Builder(Baton baton) {
      this.baton = Objects.requireNonNull(baton, "baton");
    }

    /**
     * How often the queue gauges are read from {@code queue_stats}; default 5 s, range 100 ms..1 h.
     * Each read is one query (see {@code docs/metrics.md} for its cost); scrapes never query.
     */
    public Builder refreshInterval(Duration interval) {
      if (interval == null
          || interval.compareTo(Duration.ofMillis(100)) < 0
          || interval.compareTo(Duration.ofHours(1)) > 0) {
        throw new InvalidConfigException("refreshInterval", "between PT0.1S and PT1H", interval);
      }
      this.refreshInterval = interval;
      return this;
    }

    /**
     * Whether this binder registers the cluster-wide queue gauges and runs the query behind them;
     * default true. Every node reads the same figures, so a large cluster may keep them on a few
     * nodes only; the node meters are always bound.
     */
    public Builder queueStats(boolean enabled) {
      this.queueStats = enabled;
      return this;
    }

    /**
     * Whether the timers publish percentile histograms (buckets from 1 ms to 1 h, for quantiles
     * computed by the monitoring system across nodes); default false: each timer is then a count, a
     * sum and a max. A histogram adds some 70 series per queue and kind to every scrape of a
     * Prometheus registry; turn it on where latency quantiles are wanted.
     */
    public Builder percentileHistograms(boolean enabled) {
      this.percentileHistograms = enabled;
      return this;
    }

    /** The binder; call {@link BatonMetrics#bindTo} to register its meters. */
    public BatonMetrics build() {
      return new BatonMetrics(this);
    }
  }
}
