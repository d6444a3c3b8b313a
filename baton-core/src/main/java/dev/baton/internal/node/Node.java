package dev.baton.internal.node;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.BatonConfig;
import dev.baton.BatonException;
import dev.baton.InvalidConfigException;
import dev.baton.JobRun;
import dev.baton.QueueConfig;
import dev.baton.internal.Outage;
import dev.baton.internal.Service;
import dev.baton.internal.TimeSource;
import dev.baton.internal.cluster.Cluster;
import dev.baton.internal.cluster.Elector;
import dev.baton.internal.cluster.NodeRegistry;
import dev.baton.internal.completer.Completer;
import dev.baton.internal.db.AdminStore;
import dev.baton.internal.db.ClusterStore;
import dev.baton.internal.db.EnqueueStore;
import dev.baton.internal.db.HolderStore;
import dev.baton.internal.db.Leadership;
import dev.baton.internal.db.MaintenanceStore;
import dev.baton.internal.db.PollStore;
import dev.baton.internal.db.SchemaName;
import dev.baton.internal.db.StatsStore;
import dev.baton.internal.executor.Drainer;
import dev.baton.internal.executor.HandlerEntry;
import dev.baton.internal.executor.JobExecutor;
import dev.baton.internal.held.FinishQueue;
import dev.baton.internal.held.HeldJobs;
import dev.baton.internal.held.NodeCounters;
import dev.baton.internal.held.RunningJob;
import dev.baton.internal.held.StopReason;
import dev.baton.internal.lease.Heartbeater;
import dev.baton.internal.maintenance.Cleaner;
import dev.baton.internal.maintenance.NodePruner;
import dev.baton.internal.maintenance.PeriodicEnqueuer;
import dev.baton.internal.maintenance.Rescuer;
import dev.baton.internal.maintenance.Scheduler;
import dev.baton.internal.notify.Notifier;
import dev.baton.internal.producer.Poller;
import dev.baton.internal.producer.Producer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node runtime of one client: assembles its services from the config, handlers and schedules
 * the client hands it, starts them, and stops them in the reverse order. The client keeps the
 * lifecycle (start once, stop once, under its lock); the node does what each step needs.
 *
 * <p>Start order: the notifier (its first LISTEN in place before any claim), the cluster, the
 * heartbeater and completer (which serve the handlers), then the producers and the poller. Stop
 * order is the reverse, with the handlers awaited between the producers and the completer: no new
 * claims, then the handlers finish (or are interrupted), then their finishes are written and the
 * rest stops. Every service reports connection losses to one {@link Outage}.
 *
 * <p>Not public API.
 */
public final class Node {
  private static final Logger log = LoggerFactory.getLogger(Node.class);

  /** A started service and how long its stop may take. */
  private record Running(Service service, Duration stopTimeout) {}

  private final DataSource dataSource;
  private final BatonConfig config;
  private final ObjectMapper mapper;
  private final Map<String, HandlerEntry<?>> handlers;
  private final Supplier<List<PeriodicEnqueuer.Schedule>> schedules;
  private final SchemaName schema;
  private final HolderStore holderStore;
  private final AdminStore adminStore;
  private final ClusterStore clusterStore;
  private final TimeSource time = TimeSource.SYSTEM;
  private final HeldJobs held = new HeldJobs();
  private final NodeCounters counters = new NodeCounters();
  private final Outage outage = new Outage();
  private final Map<String, Producer> producers = new ConcurrentHashMap<>();
  // Written by start and stop, which the client runs under its lifecycle lock; read by the
  // notifier's callbacks and the client's enqueues.
  private final List<Running> started = new ArrayList<>();
  private int serving; // how many of started serve the handlers (those started before claiming)
  private ExecutorService workers;
  private ScheduledExecutorService timer;
  private JobExecutor executor;
  private volatile Cluster cluster;
  private volatile Poller poller;

  /**
   * The node of a client on {@code dataSource} (the pool, each connection bounded by the lease);
   * {@code handlers} by kind; {@code schedules} asked for once, at start, if the node may lead.
   */
  public Node(
      DataSource dataSource,
      BatonConfig config,
      ObjectMapper mapper,
      Map<String, HandlerEntry<?>> handlers,
      Supplier<List<PeriodicEnqueuer.Schedule>> schedules) {
    this.dataSource = dataSource;
    this.config = config;
    this.mapper = mapper;
    this.handlers = handlers;
    this.schedules = schedules;
    this.schema = SchemaName.of(config.schema());
    this.holderStore =
        new HolderStore(
            schema,
            config.completedRetention().isZero() && !config.archiveFinished()
                ? HolderStore.CompletedRows.DELETED
                : HolderStore.CompletedRows.KEPT);
    this.adminStore = new AdminStore(schema);
    this.clusterStore = new ClusterStore(schema);
  }

  /** The jobs this node holds. */
  public HeldJobs held() {
    return held;
  }

  /** This node's outcome counters and executor listener slot. */
  public NodeCounters counters() {
    return counters;
  }

  /** The store of the holder's statements, as this node's config sets it up. */
  public HolderStore holderStore() {
    return holderStore;
  }

  /** Whether handlers run on virtual threads: as configured, else on Java 21 and later. */
  public boolean virtualThreads() {
    return Workers.virtual(config);
  }

  /**
   * A limit per key of the config refused by the database because the queue's other limit per key,
   * set there and not in the config, names another field (the database keeps one key field per
   * queue): an {@link InvalidConfigException} naming the setting and both fields. Any other failure
   * is returned as it is.
   */
  private BatonException oneKeyField(BatonException e, String queue, String setting, String field) {
    if (field == null
        || !(e.getCause() instanceof java.sql.SQLException s)
        || !"23514".equals(s.getSQLState())) {
      return e;
    }
    String[] held = clusterStore.keyFields(dataSource, queue);
    boolean rate = setting.equals("rateLimitPerKey");
    String other = rate ? held[0] : held[1];
    if (other == null || other.equals(field)) {
      return e;
    }
    InvalidConfigException refused =
        new InvalidConfigException(
            setting + " field of queue \"" + queue + "\"",
            "the field of the "
                + (rate ? "concurrency limit per key" : "rate limit per key")
                + " the database holds for the queue (\""
                + other
                + "\"), as a queue limited per key in concurrency and in rate has one key field"
                + " (set both in the config, or remove the other first)",
            field);
    refused.initCause(e);
    return refused;
  }

  /**
   * Starts the services: the workers and producers when the client has handlers and queues, the
   * notifier unless polling only or there is nothing to hear, and the cluster always. Returns when
   * they run. Called once.
   */
  public void start() {
    boolean works = !handlers.isEmpty() && !config.queues().isEmpty();
    // The cluster-wide limits this client's config sets: one statement each, before any claim.
    config
        .concurrencyLimits()
        .forEach((queue, limit) -> clusterStore.limitConcurrency(dataSource, queue, limit));
    config
        .concurrencyLimitsPerKey()
        .forEach(
            (queue, k) -> {
              BatonConfig.RateLimit r = config.rateLimits().get(queue);
              if (r != null && r.argsField() != null) {
                // one statement for both: set one at a time, a change of their (shared) field
                // would pass through a row with two fields, which the database refuses
                clusterStore.limitPerKey(
                    dataSource,
                    queue,
                    new ClusterStore.KeyLimits(
                        k.argsField(), k.limit(), r.limit(), (int) r.period().toMillis()));
              } else {
                try {
                  clusterStore.limitConcurrencyPerKey(dataSource, queue, k.argsField(), k.limit());
                } catch (BatonException e) {
                  throw oneKeyField(e, queue, "concurrencyLimitPerKey", k.argsField());
                }
              }
            });
    config
        .rateLimits()
        .forEach(
            (queue, r) -> {
              if (r.argsField() == null || !config.concurrencyLimitsPerKey().containsKey(queue)) {
                try {
                  clusterStore.limitRate(
                      dataSource, queue, r.limit(), (int) r.period().toMillis(), r.argsField());
                } catch (BatonException e) {
                  throw oneKeyField(e, queue, "rateLimitPerKey", r.argsField());
                }
              }
            });
    if (!config.concurrencyLimitsPerKey().isEmpty()
        || config.rateLimits().values().stream().anyMatch(r -> r.argsField() != null)) {
      clusterStore.syncKeyIndexes(dataSource).forEach(log::warn);
    }
    timer = new ScheduledThreadPoolExecutor(1, Workers.named("baton-timer"));
    ((ScheduledThreadPoolExecutor) timer).setRemoveOnCancelPolicy(true);
    Completer completer = null;
    Heartbeater heartbeater = null;
    if (works) {
      int total = config.queues().values().stream().mapToInt(QueueConfig::concurrency).sum();
      int holdable = // slots plus prefetched jobs: what the node may hold at once
          config.queues().values().stream()
              .mapToInt(q -> q.concurrency() + config.prefetchOf(q.concurrency()))
              .sum();
      workers = Workers.create(config, total);
      // Finishes waiting to be written count toward nothing else, so bound them near what the
      // node holds: a slow database then slows handlers (and so claiming) instead of letting a
      // backlog of held jobs grow, each one heartbeated.
      int capacity = Math.min(config.completerCapacity(), Math.max(64, holdable));
      completer =
          new Completer(
              dataSource,
              holderStore,
              held,
              counters,
              new Completer.Settings(
                  config.completerBatchSize(), capacity, config.completerFlushDelay()));
      executor = newExecutor(workers, completer, timer);
      heartbeater =
          new Heartbeater(
              dataSource,
              holderStore,
              held,
              counters,
              new Heartbeater.Settings(
                  config.lease(),
                  config.heartbeatInterval(),
                  locksSession() ? new Heartbeater.NodeLock(clusterStore, config.nodeId()) : null));
      for (QueueConfig q : config.queues().values()) {
        Producer p = newProducer(q, completer);
        BatonConfig.RateLimit rate = config.rateLimits().get(q.name());
        if (config.concurrencyLimitsPerKey().containsKey(q.name())
            || (rate != null && rate.argsField() != null)) {
          p.mode(HolderStore.ClaimMode.KEYED);
        } else if (config.concurrencyLimits().containsKey(q.name())
            || config.rateLimits().containsKey(q.name())) {
          p.mode(HolderStore.ClaimMode.LIMITED); // the first poll corrects it if keyed
        }
        producers.put(q.name(), p);
      }
      List<Producer> all = List.copyOf(producers.values());
      completer
          .afterOwnWrite(() -> all.forEach(Producer::wakeIfLimited))
          .claimsAtEachEnd(
              queue -> {
                Producer p = producers.get(queue);
                return p != null && p.limited();
              });
      PollStore pollStore = new PollStore(schema);
      seedClaimModes(pollStore);
      poller =
          new Poller(dataSource, pollStore, List.copyOf(producers.values()), config.pollInterval());
    }
    if (!config.pollOnly() && (works || config.maintenanceEnabled())) {
      startNotifier();
    }
    Cluster c = newCluster();
    cluster = c; // before its start: a leader_resigned notice may come meanwhile
    start(c, Duration.ofSeconds(10));
    if (works) {
      start(heartbeater, Duration.ofSeconds(10));
      start(completer, Duration.ofSeconds(30));
      serving = started.size();
      start(new ProducerGroup(List.copyOf(producers.values())), Duration.ofSeconds(30));
      start(poller, Duration.ofSeconds(10));
    } else {
      serving = started.size();
    }
  }

  /**
   * Tells each producer whose queue has available jobs which claim its queue's limits call for,
   * before its first claim: one read, as the poll makes it. A failed read is no failure to start:
   * the producers learn it at the first poll, and claim nothing a limit forbids meanwhile.
   */
  private void seedClaimModes(PollStore pollStore) {
    try {
      pollStore
          .findQueuesWithAvailableJobs(dataSource, List.copyOf(producers.keySet()))
          .forEach(
              (queue, mode) -> {
                if (mode != HolderStore.ClaimMode.PLAIN) {
                  producers.get(queue).mode(mode);
                }
              });
    } catch (RuntimeException e) {
      log.debug(
          "cannot read the claim modes of queues {}; the first poll reads them",
          producers.keySet(),
          e);
    }
  }

  private <S extends Service> S start(S service, Duration stopTimeout) {
    service.reportingTo(outage);
    service.start();
    started.add(new Running(service, stopTimeout));
    return service;
  }

  private void startNotifier() {
    Notifier notifier =
        start(
            new Notifier(
                dataSource,
                schema.insertChannel(),
                schema.controlChannel(),
                this::wake,
                this::onControl,
                () -> {
                  Poller p = poller;
                  if (p != null) {
                    p.pollNow();
                  }
                }),
            Duration.ofSeconds(10));
    // Listen before the first claim: a job committed between a claim and the LISTEN would
    // otherwise wait for the poll.
    boolean listening = false;
    try {
      listening = notifier.awaitListening(Duration.ofSeconds(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (!listening) {
      log.warn("LISTEN is not in place after 5 s; starting anyway (polling covers the gap)");
    }
  }

  private Producer newProducer(QueueConfig q, Completer completer) {
    return new Producer(
        dataSource,
        holderStore,
        executor,
        completer,
        new Producer.Settings(
            q.name(),
            q.concurrency(),
            new Producer.Claim(
                config.nodeId(),
                config.lease(),
                timeoutKinds(),
                timeoutMillis(),
                config.jobTimeout()),
            config.pollInterval(),
            config.completerBatchSize(),
            new Producer.Prefetch(
                config.prefetchOf(q.concurrency()),
                config.prefetch().isEmpty() ? Producer.Depth.ADAPTIVE : Producer.Depth.FIXED)));
  }

  /**
   * An executor of this node's handlers on {@code workers}, its finishes going to {@code finishes}.
   */
  public JobExecutor newExecutor(
      ExecutorService workers, FinishQueue finishes, ScheduledExecutorService timer) {
    return new JobExecutor(
        new JobExecutor.Wiring(dataSource, holderStore, adminStore, held, counters, finishes),
        mapper,
        handlers,
        workers,
        timer,
        new JobExecutor.Settings(
            schema.name(),
            config.nodeId(),
            config.jobTimeout(),
            config.lease(),
            config.retryPolicy(),
            config.maxArgsBytes()));
  }

  /**
   * Works the due jobs of {@code queue} on the calling thread with this node's handlers, as if
   * {@code now} were the time, one claim at a time: what {@link dev.baton.Drain} runs. The caller
   * makes sure the node is not started.
   */
  public List<JobRun> drain(String queue, Instant now, int maxRuns) {
    HolderStore.ClaimParams claim =
        new HolderStore.ClaimParams(
            queue,
            1,
            config.nodeId(),
            config.lease(),
            timeoutKinds(),
            timeoutMillis(),
            config.jobTimeout());
    return new Drainer(dataSource, holderStore, adminStore, held, counters, mapper)
        .drain(new Drainer.Settings(claim, now, maxRuns), this::newExecutor);
  }

  /**
   * The kinds whose handlers have a timeout of their own, in the order of {@link #timeoutMillis}.
   */
  public String[] timeoutKinds() {
    return handlers.values().stream()
        .filter(h -> h.timeout() != null)
        .map(HandlerEntry::kind)
        .toArray(String[]::new);
  }

  /** The timeouts of {@link #timeoutKinds}, in milliseconds. */
  public Long[] timeoutMillis() {
    return handlers.values().stream()
        .filter(h -> h.timeout() != null)
        .map(h -> h.timeout().toMillis())
        .toArray(Long[]::new);
  }

  private Cluster newCluster() {
    MaintenanceStore ms = new MaintenanceStore(schema);
    Elector elector = null;
    List<Cluster.Periodic> services = new ArrayList<>();
    if (config.maintenanceEnabled()) {
      elector =
          new Elector(
              dataSource,
              clusterStore,
              Leadership.MAINTENANCE,
              config.nodeId(),
              config.leaderTtl(),
              time);
      Duration every = config.maintenanceInterval();
      services.add(
          new Cluster.Periodic(
              new Rescuer(
                  dataSource,
                  ms,
                  counters,
                  time,
                  new Rescuer.Settings(
                      Rescuer.DEFAULT_BATCH_SIZE,
                      config.maxRescues(),
                      new Rescuer.GoneNodes(clusterStore, config.nodeId(), Rescuer.GONE_GRACE))),
              every));
      services.add(
          new Cluster.Periodic(
              new Scheduler(dataSource, ms, time, Scheduler.DEFAULT_BATCH_SIZE), every));
      services.add(
          new Cluster.Periodic(
              new dev.baton.internal.maintenance.Releaser(
                  dataSource,
                  new dev.baton.internal.db.ReleaseStore(schema),
                  dev.baton.internal.maintenance.Releaser.DEFAULT_BATCH_SIZE),
              every));
      List<PeriodicEnqueuer.Schedule> periodic = schedules.get();
      if (!periodic.isEmpty()) {
        services.add(
            new Cluster.Periodic(
                new PeriodicEnqueuer(dataSource, ms, new EnqueueStore(schema), time, periodic),
                every));
      }
      services.add(
          new Cluster.Periodic(
              new Cleaner(
                  dataSource,
                  ms,
                  time,
                  new Cleaner.Settings(
                      config.completedRetention(),
                      config.cancelledRetention(),
                      config.discardedRetention(),
                      config.cleanBatchSize(),
                      config.archiveFinished()
                          ? Cleaner.Expired.ARCHIVED
                          : Cleaner.Expired.DELETED)),
              config.cleanInterval()));
      services.add(
          new Cluster.Periodic(
              new dev.baton.internal.maintenance.Tallier(dataSource, ms, time),
              dev.baton.internal.maintenance.Tallier.DEFAULT_INTERVAL));
      services.add(
          new Cluster.Periodic(
              new NodePruner(dataSource, ms, time, config.nodeTtl()),
              config.nodeHeartbeatInterval()));
    }
    List<String> worked = handlers.isEmpty() ? List.of() : List.copyOf(config.queues().keySet());
    ClusterStore.NodeRow self = NodeRegistry.describe(config.nodeId(), worked);
    NodeRegistry registry =
        new NodeRegistry(
            dataSource, clusterStore, locksSession() ? self.lockingSession() : self, time);
    if (!handlers.isEmpty()) {
      registry.afterBeat(
          new StrandedJobs(
              dataSource,
              new StatsStore(schema),
              List.copyOf(handlers.keySet()),
              worked,
              config.nodeTtl()));
    }
    return new Cluster(elector, registry, config.nodeHeartbeatInterval(), services);
  }

  /**
   * Whether this node holds a session lock on its heartbeat connection, by which the leader tells
   * that it is gone: when it works queues, and not behind a transaction pooler ({@code pollOnly}),
   * where a session lock would stay on a server connection that other clients use.
   */
  private boolean locksSession() {
    return !handlers.isEmpty() && !config.queues().isEmpty() && !config.pollOnly();
  }

  /** Wakes this node's producer of {@code queue}, if it works it: jobs are available there. */
  public void wake(String queue) {
    Producer p = producers.get(queue);
    if (p != null) {
      p.wake();
    }
  }

  /**
   * Claim on enqueue: runs {@code insert} in a free slot of this node's producer of {@code queue}
   * ({@link Producer#enqueueClaiming}). Returns null, running nothing, when this node does not work
   * the queue or the producer takes no job now.
   */
  public EnqueueStore.EnqueuedClaim enqueueClaiming(
      String queue, Function<HolderStore.ClaimParams, EnqueueStore.EnqueuedClaim> insert) {
    Producer p = producers.get(queue);
    return p == null ? null : p.enqueueClaiming(insert);
  }

  /** Whether this node leads the cluster now (and so runs maintenance). */
  public boolean leading() {
    Cluster c = cluster;
    return c != null && c.leading();
  }

  private void onControl(String payload) {
    JsonNode msg;
    try {
      msg = mapper.readTree(payload);
    } catch (JsonProcessingException e) {
      log.warn("ignoring malformed control message: {}", payload);
      return;
    }
    String action = msg.path("action").asText();
    if ("leader_resigned".equals(action)) {
      Cluster c = cluster;
      if (c != null) {
        c.electNow();
      }
    } else if ("queue_resumed".equals(action)) {
      wake(msg.path("queue").asText());
    } else if ("queue_limited".equals(action)) {
      Producer p = producers.get(msg.path("queue").asText());
      if (p != null) {
        p.mode(HolderStore.ClaimMode.of(msg.path("mode").asText(null)));
        p.wake();
      }
    } else if ("cancel".equals(action)) {
      RunningJob rj = held.get(msg.path("job_id").asLong());
      if (rj != null && rj.fence() == msg.path("fence").asLong()) {
        rj.stop(StopReason.CANCELLED);
      }
    }
  }

  /**
   * Stops the services in the reverse order of their start, waiting up to {@code timeout} for
   * running handlers once claiming has stopped, then interrupting those still running and waiting a
   * little more. A handler of this node calling it is neither waited for nor stopped. Runs to the
   * end even if the calling thread is interrupted; returns whether it was. Called once, after
   * {@link #start}.
   */
  public boolean stop(Duration timeout) {
    boolean interrupted = false;
    List<RunningJob> caller = JobExecutor.currentJobs();
    long handedBackBefore = counters.handedBack.sum();
    try {
      for (int i = started.size() - 1; i >= serving; i--) {
        interrupted |= stop(started.get(i));
      }
      interrupted |= awaitHandlers(timeout, caller);
      if (executor != null && activeBesides(caller) > 0) {
        for (RunningJob rj : held.snapshot()) {
          if (!rj.handlerDone() && !caller.contains(rj)) {
            rj.stop(StopReason.SHUTDOWN);
          }
        }
        interrupted |= awaitHandlers(Duration.ofSeconds(5), caller);
        if (activeBesides(caller) > 0) {
          log.warn(
              "{} handlers ignored interruption at stop; their jobs are rescued when their"
                  + " leases expire",
              activeBesides(caller));
        }
      }
    } finally {
      for (int i = Math.min(serving, started.size()) - 1; i >= 0; i--) {
        interrupted |= stop(started.get(i));
      }
      if (timer != null) {
        timer.shutdownNow();
      }
      if (workers != null) {
        if (caller.isEmpty()) {
          workers.shutdownNow();
        } else {
          workers.shutdown(); // do not interrupt the calling handler's own thread
        }
      }
      long handedBack = counters.handedBack.sum() - handedBackBefore;
      if (handedBack > 0) {
        log.info(
            "handed back {} jobs at stop: they are available again for any node, the attempt not"
                + " counted",
            handedBack);
      }
    }
    return interrupted;
  }

  /** Stops {@code r} to the end, retrying when interrupted; returns whether it was. */
  private static boolean stop(Running r) {
    boolean interrupted = false;
    while (true) {
      try {
        r.service().stop(r.stopTimeout());
        return interrupted;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
  }

  private int activeBesides(List<RunningJob> caller) {
    return executor == null ? 0 : executor.active() - caller.size();
  }

  /**
   * Waits up to {@code timeout} until every execution (but the caller's own) has returned and
   * queued its finish. Returns whether the calling thread was interrupted meanwhile.
   */
  private boolean awaitHandlers(Duration timeout, List<RunningJob> caller) {
    boolean interrupted = false;
    long deadline = System.nanoTime() + timeout.toNanos();
    while (activeBesides(caller) > 0 && System.nanoTime() - deadline < 0) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
      interrupted |= Thread.interrupted();
    }
    return interrupted;
  }
}
