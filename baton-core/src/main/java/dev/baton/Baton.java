package dev.baton;

import com.cronutils.model.time.ExecutionTime;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.baton.admin.BatonAdmin;
import dev.baton.internal.ClientInternals;
import dev.baton.internal.admission.BacklogCaps;
import dev.baton.internal.db.Db;
import dev.baton.internal.db.EnqueueStore;
import dev.baton.internal.db.JobRow;
import dev.baton.internal.db.SchemaName;
import dev.baton.internal.executor.HandlerChain;
import dev.baton.internal.executor.HandlerEntry;
import dev.baton.internal.held.HeldJobs;
import dev.baton.internal.held.NodeCounters;
import dev.baton.internal.maintenance.PeriodicEnqueuer;
import dev.baton.internal.node.Node;
import dev.baton.migrate.Migrator;
import dev.baton.spi.JobInterceptor;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.locks.ReentrantLock;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Baton client: enqueues jobs and, when it has handlers and queues, works them.
 *
 * <pre>{@code
 * Baton baton = Baton.builder(dataSource)
 *     .config(BatonConfig.builder().queue("mail", 8).build())
 *     .handler(SendEmail.class, (ctx, email) -> mailer.send(email, ctx.idempotencyKey()))
 *     .build();
 * baton.start();
 * baton.enqueue(new SendEmail(42, "a@example.com"), EnqueueOptions.builder().queue("mail").build());
 * }</pre>
 *
 * <p>Thread-safe. Enqueueing works before {@link #start()} and after {@link #stop()}. Working jobs
 * needs {@link #start()}: then one producer thread per queue claims into free slots, handlers run
 * on virtual threads (Java 21+) or a bounded pool (Java 17), a completer writes finishes in
 * batches, a heartbeater extends leases, one connection LISTENs for wake-ups, and a maintenance
 * thread rescues expired leases and makes due jobs available. No database transaction of Baton's is
 * open while a handler runs.
 *
 * <p>Start/stop contract: {@link #start()} returns when the client runs; {@link #stop()} returns
 * when it has stopped; stop before start and stop twice are fine; a stopped client cannot start
 * again.
 */
public final class Baton implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Baton.class);

  private enum Lifecycle {
    NEW,
    RUNNING,
    STOPPED
  }

  private final DataSource pool; // the application's
  private final DataSource dataSource; // the pool, each borrowed connection bounded by the lease
  private final BatonConfig config;
  private final ObjectMapper mapper;
  private final Map<String, HandlerEntry<?>> handlers;
  private final List<JobInterceptor> interceptors;
  private final SchemaName schema;
  private final EnqueueStore enqueueStore;
  private final BacklogCaps backlogCaps;
  private final WorkflowWriter workflows;
  private final BatonAdmin admin;
  private final List<PeriodicJob> periodicJobs;
  private final Node node;
  private final HeldJobs held;
  private final NodeCounters counters;
  private final ClassValue<String> kinds =
      new ClassValue<>() {
        @Override
        protected String computeValue(Class<?> type) {
          return JobArgs.kindOf(type);
        }
      };
  private final KindDefaults kindDefaults;
  private final ReentrantLock lifecycleLock = new ReentrantLock();
  private volatile Lifecycle lifecycle = Lifecycle.NEW; // written under lifecycleLock

  private Baton(Builder b) {
    this.pool = b.dataSource;
    this.config = b.config;
    // A read that gets no answer within a lease is no use to anyone: the node's leases cannot be
    // extended meanwhile and its handlers are stopped by then.
    this.dataSource = Db.withNetworkTimeout(b.dataSource, config.lease());
    this.mapper = b.mapper != null ? b.mapper : defaultMapper();
    this.interceptors = List.copyOf(b.interceptors);
    this.kindDefaults = new KindDefaults(config, b.handlers.values());
    Map<String, HandlerEntry<?>> instrumented = new LinkedHashMap<>();
    b.handlers.forEach((kind, h) -> instrumented.put(kind, instrumented(kindDefaults.applyTo(h))));
    this.handlers = Collections.unmodifiableMap(instrumented);
    this.schema = SchemaName.of(config.schema());
    this.backlogCaps = new BacklogCaps(dataSource, schema, true);
    this.enqueueStore = new EnqueueStore(schema, backlogCaps);
    this.workflows =
        new WorkflowWriter(new dev.baton.internal.db.WorkflowStore(schema), enqueueStore);
    this.admin = new BatonAdmin(dataSource, config, mapper);
    this.periodicJobs = List.copyOf(b.periodic.values());
    this.node = new Node(dataSource, config, mapper, handlers, this::schedules);
    this.held = node.held();
    this.counters = node.counters();
    for (PeriodicJob p : periodicJobs) {
      prepare(p.args(), p.options()); // fails at build, not on the leader, if it cannot enqueue
    }
  }

  /** A builder for a client on {@code dataSource} (a pool, e.g. HikariCP). */
  public static Builder builder(DataSource dataSource) {
    return new Builder(dataSource);
  }

  /** This client's config. */
  public BatonConfig config() {
    return config;
  }

  /** This client's node id. */
  public String nodeId() {
    return config.nodeId();
  }

  // ---------------------------------------------------------------- enqueue

  /** Enqueues {@code args} with default options, on the client's pool (its own transaction). */
  public EnqueueResult enqueue(JobArgs args) {
    return enqueue(args, EnqueueOptions.defaults());
  }

  /**
   * Enqueues {@code args} on the client's pool, committed when this returns. Producers of this
   * client working the job's queue are woken at once. When this client is started, works the job's
   * queue with a slot free, handles its kind, and no job of that queue waits ahead of it, the job
   * is claimed by this client in the insert itself and is returned already {@code RUNNING} ({@link
   * BatonConfig.Builder#claimOnEnqueue(boolean)}).
   *
   * @throws UnknownKindException if no handler handles the kind and unknown kinds are not allowed
   * @throws InvalidJobException if the args or metadata are too large or cannot be serialised, or
   *     their text or the idempotency key is not valid Unicode (an unpaired surrogate) or holds NUL
   * @throws BacklogCapExceededException if the job's queue has a backlog cap that it would exceed;
   *     nothing is written
   */
  public EnqueueResult enqueue(JobArgs args, EnqueueOptions options) {
    EnqueueStore.NewJob job = prepare(args, intercepted(args, options));
    try {
      return enqueuePrepared(job);
    } catch (BacklogCapExceededException e) {
      counters.refusedEnqueues.increment();
      throw e;
    }
  }

  private EnqueueResult enqueuePrepared(EnqueueStore.NewJob job) {
    String what = "cannot enqueue job (kind=" + job.kind() + ")";
    if (config.claimOnEnqueue()
        && job.runAt() == null
        && job.unique() == null
        && handlers.containsKey(job.kind())) {
      // Claim on enqueue: the insert claims the job for this node when nothing waits ahead of it.
      EnqueueStore.EnqueuedClaim r =
          node.enqueueClaiming(
              job.queue(),
              claim ->
                  Db.inTransaction(
                      dataSource, what, c -> enqueueStore.enqueueClaiming(c, job, claim)));
      if (r != null) {
        return result(r.row());
      }
    }
    JobRow row = Db.inTransaction(dataSource, what, c -> enqueueStore.enqueue(c, job));
    wakeLocal(row.queue(), row.state());
    return result(row);
  }

  /** Enqueues {@code args} with default options inside the caller's transaction on {@code c}. */
  public EnqueueResult enqueue(Connection c, JobArgs args) {
    return enqueue(c, args, EnqueueOptions.defaults());
  }

  /**
   * Enqueues {@code args} inside the caller's current transaction on {@code c}: the job exists if
   * and only if that transaction commits, and workers hear of it (NOTIFY) only at commit.
   *
   * <p>To a queue with a backlog cap, the enqueue first takes the queue's admission lock, held
   * until the caller's transaction ends (docs/backlog-caps.md): the other producers of that queue
   * wait for it, so end the transaction soon after the enqueue.
   *
   * @throws BacklogCapExceededException if the job's queue has a backlog cap that it would exceed;
   *     nothing is written and the transaction stays usable (commit or roll back as you choose)
   */
  public EnqueueResult enqueue(Connection c, JobArgs args, EnqueueOptions options) {
    Objects.requireNonNull(c, "connection");
    EnqueueStore.NewJob job = prepare(args, intercepted(args, options));
    try {
      return result(enqueueStore.enqueue(c, job));
    } catch (SQLException e) {
      throw Db.wrap("cannot enqueue job (kind=" + job.kind() + ")", e);
    } catch (BacklogCapExceededException e) {
      counters.refusedEnqueues.increment();
      throw e;
    }
  }

  /**
   * Enqueues many jobs in one transaction on the client's pool. Every request is validated before
   * anything is written; one bad request rejects the whole call. One statement writes them; a call
   * of 256 jobs or more in which no request has an idempotency key or a run time is written with
   * {@code COPY} instead (the same rows, cheaper for the server to take in).
   *
   * @throws BacklogCapExceededException if the call's jobs of one queue would take it over its
   *     backlog cap; none of the call's jobs is written (all or nothing)
   */
  public EnqueueManyResult enqueueMany(List<JobRequest> requests) {
    List<EnqueueStore.NewJob> jobs = prepareAll(requests);
    if (jobs.isEmpty()) {
      return new EnqueueManyResult(new long[0], new boolean[0]);
    }
    EnqueueStore.BulkResult r;
    try {
      r =
          Db.inTransaction(
              dataSource,
              "cannot enqueue " + jobs.size() + " jobs",
              c -> enqueueStore.enqueueMany(c, jobs));
    } catch (BacklogCapExceededException e) {
      counters.refusedEnqueues.increment();
      throw e;
    }
    jobs.stream()
        .map(EnqueueStore.NewJob::queue)
        .distinct()
        .forEach(q -> wakeLocal(q, "available"));
    return new EnqueueManyResult(r.ids(), r.existing());
  }

  /**
   * Enqueues many jobs inside the caller's transaction on {@code c}, as {@link #enqueueMany(List)}
   * does (an autocommit {@code c} gets one transaction for the call). Workers hear of them (NOTIFY)
   * at commit.
   *
   * @throws BacklogCapExceededException if the call's jobs of one queue would take it over its
   *     backlog cap; none of the call's jobs is written and the transaction stays usable
   */
  public EnqueueManyResult enqueueMany(Connection c, List<JobRequest> requests) {
    Objects.requireNonNull(c, "connection");
    List<EnqueueStore.NewJob> jobs = prepareAll(requests);
    if (jobs.isEmpty()) {
      return new EnqueueManyResult(new long[0], new boolean[0]);
    }
    try {
      EnqueueStore.BulkResult r = enqueueStore.enqueueMany(c, jobs);
      return new EnqueueManyResult(r.ids(), r.existing());
    } catch (SQLException e) {
      throw Db.wrap("cannot enqueue " + jobs.size() + " jobs", e);
    } catch (BacklogCapExceededException e) {
      counters.refusedEnqueues.increment();
      throw e;
    }
  }

  // ---------------------------------------------------------------- workflows and batches

  /**
   * Enqueues {@code workflow}'s steps in one transaction on the client's pool: steps with nothing
   * to wait for are available at once, the others pending until their dependencies completed (see
   * {@link Workflow}). Every step is validated before anything is written.
   *
   * @throws InvalidJobException if a step's args or options are invalid, or an existing job a step
   *     waits for does not exist (or failed, under {@link DependencyFailure#CANCEL})
   */
  public EnqueuedWorkflow enqueueWorkflow(Workflow workflow) {
    Objects.requireNonNull(workflow, "workflow");
    List<WorkflowWriter.Node> nodes = nodesOf(workflow);
    EnqueuedWorkflow r =
        Db.inExplicitTransaction(
            dataSource, "cannot enqueue workflow", c -> writeWorkflow(c, workflow, nodes));
    nodes.stream().map(n -> n.job().queue()).distinct().forEach(q -> wakeLocal(q, "available"));
    return r;
  }

  /**
   * Enqueues {@code workflow} inside the caller's transaction on {@code c}: its jobs exist if and
   * only if that transaction commits (an autocommit {@code c} gets one transaction for the call).
   */
  public EnqueuedWorkflow enqueueWorkflow(Connection c, Workflow workflow) {
    Objects.requireNonNull(c, "connection");
    Objects.requireNonNull(workflow, "workflow");
    List<WorkflowWriter.Node> nodes = nodesOf(workflow);
    try {
      return Db.inOneTransaction(c, tx -> writeWorkflow(tx, workflow, nodes));
    } catch (SQLException e) {
      throw Db.wrap("cannot enqueue workflow", e);
    }
  }

  /**
   * Enqueues {@code args} to run once the existing jobs {@code dependsOn} completed: a workflow of
   * one step, named {@code "job"}, whose failed dependencies cancel it.
   */
  public EnqueueResult enqueueAfter(long[] dependsOn, JobArgs args, EnqueueOptions options) {
    Workflow one =
        Workflow.builder().step("job", args, options).afterJobs("job", dependsOn).build();
    long id = enqueueWorkflow(one).id("job");
    return new EnqueueResult(id, false, false, () -> job(id).orElseThrow());
  }

  private List<WorkflowWriter.Node> nodesOf(Workflow workflow) {
    List<Workflow.Step> steps = workflow.steps();
    List<EnqueueStore.NewJob> jobs =
        prepareAll(steps.stream().map(Workflow.Step::request).toList());
    Map<String, Integer> index = new java.util.HashMap<>();
    for (int i = 0; i < steps.size(); i++) {
      index.put(steps.get(i).name(), i);
    }
    List<WorkflowWriter.Node> nodes = new ArrayList<>(steps.size());
    for (int i = 0; i < steps.size(); i++) {
      Workflow.Step s = steps.get(i);
      nodes.add(
          new WorkflowWriter.Node(
              jobs.get(i), s.name(), s.after().stream().map(index::get).toList(), s.afterJobs()));
    }
    return nodes;
  }

  private EnqueuedWorkflow writeWorkflow(
      Connection c, Workflow workflow, List<WorkflowWriter.Node> nodes) throws SQLException {
    long[] ids =
        workflows.write(c, nodes, workflow.onDependencyFailure(), "cannot enqueue workflow");
    Map<String, Long> byName = new LinkedHashMap<>();
    for (int i = 0; i < ids.length; i++) {
      byName.put(nodes.get(i).name(), ids[i]);
    }
    return new EnqueuedWorkflow(byName);
  }

  /**
   * Enqueues {@code jobs} as a batch with {@code callback}, in one transaction on the client's
   * pool: the callback runs once, after every member is final (completed, discarded or cancelled),
   * whatever their outcomes; its context counts them ({@link JobContext#dependencyCounts()}) and
   * lists them with their outputs ({@link JobContext#dependencies()}).
   *
   * @throws InvalidJobException if a request is invalid, or {@code jobs} is empty
   */
  public EnqueuedBatch enqueueBatch(List<JobRequest> jobs, JobRequest callback) {
    List<WorkflowWriter.Node> nodes = batchNodes(jobs, callback);
    EnqueuedBatch r =
        Db.inExplicitTransaction(
            dataSource,
            "cannot enqueue batch of " + jobs.size() + " jobs",
            c -> writeBatch(c, nodes));
    nodes.stream().map(n -> n.job().queue()).distinct().forEach(q -> wakeLocal(q, "available"));
    return r;
  }

  /** {@link #enqueueBatch(List, JobRequest)} inside the caller's transaction on {@code c}. */
  public EnqueuedBatch enqueueBatch(Connection c, List<JobRequest> jobs, JobRequest callback) {
    Objects.requireNonNull(c, "connection");
    List<WorkflowWriter.Node> nodes = batchNodes(jobs, callback);
    try {
      return Db.inOneTransaction(c, tx -> writeBatch(tx, nodes));
    } catch (SQLException e) {
      throw Db.wrap("cannot enqueue batch of " + jobs.size() + " jobs", e);
    }
  }

  private List<WorkflowWriter.Node> batchNodes(List<JobRequest> jobs, JobRequest callback) {
    Objects.requireNonNull(jobs, "jobs");
    Objects.requireNonNull(callback, "callback");
    if (jobs.isEmpty()) {
      throw new InvalidJobException(
          "cannot enqueue batch: it has no job; a batch needs at least one job besides its"
              + " callback");
    }
    List<JobRequest> all = new ArrayList<>(jobs);
    all.add(callback);
    List<EnqueueStore.NewJob> prepared = prepareAll(all);
    List<WorkflowWriter.Node> nodes = new ArrayList<>(all.size());
    List<Integer> members = new ArrayList<>(jobs.size());
    for (int i = 0; i < jobs.size(); i++) {
      nodes.add(new WorkflowWriter.Node(prepared.get(i), null, List.of(), new long[0]));
      members.add(i);
    }
    nodes.add(new WorkflowWriter.Node(prepared.get(jobs.size()), "callback", members, new long[0]));
    return nodes;
  }

  private EnqueuedBatch writeBatch(Connection c, List<WorkflowWriter.Node> nodes)
      throws SQLException {
    long[] ids = workflows.write(c, nodes, DependencyFailure.RUN, "cannot enqueue batch");
    return new EnqueuedBatch(java.util.Arrays.copyOf(ids, ids.length - 1), ids[ids.length - 1]);
  }

  /**
   * Every request of a bulk enqueue prepared, in order. Every request is validated before anything
   * is written: bad input is reported as such whatever the database's state, and a caller's
   * transaction is not aborted by it.
   */
  private List<EnqueueStore.NewJob> prepareAll(List<JobRequest> requests) {
    Objects.requireNonNull(requests, "requests");
    List<EnqueueStore.NewJob> jobs = new ArrayList<>(requests.size());
    for (int i = 0; i < requests.size(); i++) {
      JobRequest r = requests.get(i);
      if (r == null) {
        throw new InvalidJobException("cannot enqueue jobs: request " + i + " is null");
      }
      try {
        jobs.add(prepare(r.args(), intercepted(r.args(), r.options())));
      } catch (InvalidJobException e) {
        throw new InvalidJobException(
            "cannot enqueue jobs: request " + i + ": " + e.getMessage(), e);
      }
    }
    return jobs;
  }

  /** {@code options} with the metadata the client's interceptors add to a job of {@code args}. */
  private EnqueueOptions intercepted(JobArgs args, EnqueueOptions options) {
    if (interceptors.isEmpty()) {
      return options;
    }
    Objects.requireNonNull(args, "args");
    Objects.requireNonNull(options, "options");
    String kind = kinds.get(args.getClass());
    Map<String, Object> added = new LinkedHashMap<>();
    for (JobInterceptor i : interceptors) {
      Map<String, ?> entries = i.enqueueMetadata(kind, options);
      if (entries != null) {
        added.putAll(entries);
      }
    }
    return options.withMetadataDefaults(added);
  }

  private EnqueueStore.NewJob prepare(JobArgs args, EnqueueOptions options) {
    Objects.requireNonNull(args, "args");
    Objects.requireNonNull(options, "options");
    String kind = kinds.get(args.getClass());
    options = kindDefaults.applyTo(args.getClass(), options);
    if (!config.allowUnknownKinds()
        && !handlers.containsKey(kind)
        && !config.knownKinds().contains(kind)) {
      throw new UnknownKindException(kind);
    }
    String json;
    try {
      json = mapper.writeValueAsString(args);
    } catch (JsonProcessingException e) {
      throw new InvalidJobException(
          "cannot enqueue job (kind="
              + kind
              + "): args cannot be serialised to JSON: "
              + e.getOriginalMessage(),
          e);
    }
    return EnqueueStore.NewJob.prepare(
        kind, json, options, mapper, config.maxArgsBytes(), config.maxMetadataBytes());
  }

  private void wakeLocal(String queue, String state) {
    if ("available".equals(state)) {
      node.wake(queue);
    }
  }

  // ---------------------------------------------------------------- read and cancel

  /** The job with {@code id}, if it exists: {@link BatonAdmin#get}. */
  public Optional<Job> job(long id) {
    return admin.get(id);
  }

  /**
   * Cancels a job. A job waiting to run is cancelled at once. A running job is flagged, and its
   * holder is told (NOTIFY, and its next heartbeat) to interrupt the handler; it becomes {@code
   * cancelled} when the handler gives up (a handler that completes anyway completes). Returns the
   * state after the call: {@code CANCELLED}, or {@code RUNNING} for a running job; empty when the
   * job does not exist or is already final. {@link BatonAdmin#cancel}.
   */
  public Optional<JobState> cancel(long id) {
    return admin.cancel(id);
  }

  /** Outcome counts of this client since it started. */
  public Counters counters() {
    NodeCounters c = counters;
    return new Counters(
        c.claimed.sum(),
        c.completed.sum(),
        c.retried.sum(),
        c.discarded.sum(),
        c.cancelled.sum(),
        c.snoozed.sum(),
        c.fenced.sum(),
        c.leasesLost.sum(),
        c.rescued.sum(),
        c.handedBack.sum(),
        held.running());
  }

  /**
   * What Baton's own metrics binder reads of this client: its pool and its node's live counters.
   * Not public API: the type is internal and may change in any release; read {@link #counters()}
   * instead.
   */
  public ClientInternals internals() {
    return new ClientInternals(pool, counters);
  }

  /** An enqueue's result; its {@link Job} is parsed from {@code row} when first asked for. */
  private EnqueueResult result(JobRow row) {
    return new EnqueueResult(row.id(), row.existing(), row.updated(), () -> row.toJob(mapper));
  }

  // ---------------------------------------------------------------- drain (tests)

  /**
   * Works the due jobs of {@code queue} on the calling thread with this client's handlers; the
   * implementation of {@link Drain}, the test kit's way in (see there for what it does). Not a
   * method of the client's public API.
   *
   * @throws IllegalStateException if this client is started (its producers work the same jobs)
   */
  List<JobRun> drain(String queue, Instant now, int maxRuns) {
    QueueConfig.requireValidName(queue);
    Objects.requireNonNull(now, "now");
    if (maxRuns < 1) {
      throw new IllegalArgumentException("drain maxRuns must be at least 1, got " + maxRuns);
    }
    lifecycleLock.lock();
    try {
      if (lifecycle == Lifecycle.RUNNING) {
        throw new IllegalStateException(
            "cannot drain queue "
                + queue
                + " (node="
                + nodeId()
                + "): this client is started and its producers work the queue; drain with a"
                + " client that is not started (in a Spring Boot test: baton.enabled=false, or"
                + " baton-test's @BatonTestSchema on the test class)");
      }
    } finally {
      lifecycleLock.unlock();
    }
    return node.drain(queue, now, maxRuns);
  }

  // ---------------------------------------------------------------- cluster

  /**
   * Pauses {@code queue} on every node: no node claims its jobs until {@link #resumeQueue}. Jobs
   * already running, and those a node has already claimed ahead, finish. Enqueueing goes on.
   * Pausing a paused queue does nothing. {@link BatonAdmin#pause}, by this client's node id.
   *
   * @throws InvalidConfigException if {@code queue} is not a valid queue name
   */
  public void pauseQueue(String queue) {
    admin.pause(queue, nodeId());
  }

  /**
   * Resumes {@code queue} on every node, and wakes their producers. Returns false if it was not
   * paused. {@link BatonAdmin#resume}, by this client's node id; this client's own producers of the
   * queue are woken at once as well.
   *
   * @throws InvalidConfigException if {@code queue} is not a valid queue name
   */
  public boolean resumeQueue(String queue) {
    boolean resumed = admin.resume(queue, nodeId());
    if (resumed) {
      wakeLocal(queue, "available");
    }
    return resumed;
  }

  /**
   * Sets {@code queue}'s backlog cap, cluster-wide: an enqueue that would leave more than {@code
   * cap} jobs waiting (available, scheduled, retryable) in it is refused with {@link
   * BacklogCapExceededException}. {@link BatonAdmin#setBacklogCap}, by this client's node id: when
   * the queue had no cap, returns once every client checks it ({@link BatonAdmin#CAP_PROPAGATION}).
   *
   * @return the cap the queue had before, if any
   * @throws InvalidConfigException if {@code queue} is not a valid queue name or {@code cap} is not
   *     1..100,000,000
   */
  public OptionalInt setBacklogCap(String queue, int cap) {
    return admin.setBacklogCap(queue, cap, nodeId());
  }

  /**
   * Removes {@code queue}'s backlog cap, at once for every client; false if it had none. {@link
   * BatonAdmin#removeBacklogCap}, by this client's node id.
   *
   * @throws InvalidConfigException if {@code queue} is not a valid queue name
   */
  public boolean removeBacklogCap(String queue) {
    return admin.removeBacklogCap(queue, nodeId());
  }

  /** Every queue the cluster knows, by name: {@link BatonAdmin#queues}. */
  public List<QueueInfo> queues() {
    return admin.queues();
  }

  /** The nodes in the registry, by id: {@link BatonAdmin#nodes}. */
  public List<NodeInfo> nodes() {
    return admin.nodes();
  }

  /** The maintenance leader as the database records it, if any: {@link BatonAdmin#leader}. */
  public Optional<LeaderInfo> leader() {
    return admin.leader();
  }

  /**
   * Whether this client is started and not stopped: its workers claim and run jobs of its queues.
   * False before {@link #start()}, and from the moment {@link #stop()} begins.
   */
  public boolean isRunning() {
    return lifecycle == Lifecycle.RUNNING;
  }

  /** Whether this client leads the cluster now (and so runs maintenance). */
  public boolean isLeader() {
    return node.leading();
  }

  // ---------------------------------------------------------------- lifecycle

  /**
   * Starts working this client's queues: checks the schema is migrated, then starts the notifier,
   * the cluster (and maintenance, while this node leads), the heartbeater, completer, producers and
   * poller; {@link #stop(Duration)} stops them in the reverse order. A client without handlers or
   * queues starts nothing but the check. Returns when running, once each queue's first claim (of
   * the jobs that waited while no producer ran) has returned, or after 5 s; a second call does
   * nothing.
   *
   * @throws SchemaNotMigratedException if the tables are missing or too old
   * @throws SchemaTooNewException if the tables are at a version newer than this library knows
   * @throws IllegalStateException if the client was stopped
   */
  public void start() {
    lifecycleLock.lock();
    try {
      if (lifecycle == Lifecycle.RUNNING) {
        return;
      }
      if (lifecycle == Lifecycle.STOPPED) {
        throw new IllegalStateException(
            "cannot start Baton client (node=" + nodeId() + "): it was stopped; build a new one");
      }
      checkSchema();
      node.start();
      lifecycle = Lifecycle.RUNNING;
      log.info(
          "Baton client started (node={}, schema={}, queues={}, kinds={}, virtual_threads={})",
          nodeId(),
          schema,
          config.queueNames(),
          handlers.keySet(),
          node.virtualThreads());
    } finally {
      lifecycleLock.unlock();
    }
  }

  private void checkSchema() {
    new Migrator(dataSource, schema.name()).requireLatest();
  }

  private List<PeriodicEnqueuer.Schedule> schedules() {
    List<PeriodicEnqueuer.Schedule> out = new ArrayList<>();
    for (PeriodicJob p : periodicJobs) {
      out.add(
          new PeriodicEnqueuer.Schedule(
              p.name(),
              new PeriodicEnqueuer.Cron(
                  p.expression(), ExecutionTime.forCron(p.parsed()), p.zone()),
              p.missedRuns(),
              p.lateTolerance(),
              prepare(p.args(), p.options())));
    }
    return out;
  }

  /** Stops with the configured stop timeout. See {@link #stop(Duration)}. */
  public void stop() {
    stop(config.stopTimeout());
  }

  /**
   * Stops gracefully: stops claiming, waits up to {@code timeout} for running handlers, interrupts
   * those still running and waits a little more, writes every pending finish, and hands the jobs
   * whose handlers gave up back to the queue ({@code available}, attempt not used, fence-checked).
   * Returns when stopped. Stop before start, and stop twice, are fine.
   */
  public void stop(Duration timeout) {
    // Stop runs to the end even if the calling thread is interrupted (or is interrupted while it
    // waits): a half-stopped client would keep claiming into a closed pool. The interrupt is
    // remembered and restored on return.
    boolean interrupted = Thread.interrupted();
    backlogCaps.close(); // an enqueue after the stop starts its refresh thread again
    lifecycleLock.lock();
    try {
      if (lifecycle != Lifecycle.RUNNING) {
        lifecycle = Lifecycle.STOPPED;
        return;
      }
      lifecycle = Lifecycle.STOPPED;
      interrupted |= node.stop(timeout);
      log.info("Baton client stopped (node={})", nodeId());
    } finally {
      lifecycleLock.unlock();
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Same as {@link #stop()}. */
  @Override
  public void close() {
    stop();
  }

  private <A extends JobArgs> HandlerEntry<A> instrumented(HandlerEntry<A> h) {
    if (h.batches()) {
      return h; // interceptors wrap one job's attempt; see BatchJobHandler
    }
    return new HandlerEntry<>(
        h.kind(),
        h.argsType(),
        HandlerChain.wrap(h.handler(), interceptors),
        h.settings(),
        null,
        0);
  }

  static ObjectMapper defaultMapper() {
    // Jackson recycles its parse buffers per thread by default; a worker on virtual threads runs
    // each job on a new thread, so every parse of args would allocate fresh buffers. A bounded
    // pool shared by all threads keeps them.
    JsonFactory factory =
        JsonFactory.builder().recyclerPool(JsonRecyclerPools.newBoundedPool(64)).build();
    return new ObjectMapper(factory)
        .registerModule(new JavaTimeModule())
        .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
  }

  /** Builds a {@link Baton} client. Not thread-safe. */
  public static final class Builder {
    /** The largest batch of {@link #batchHandler(Class, BatchJobHandler)}. */
    public static final int DEFAULT_MAX_BATCH = 100;

    /** The largest {@code maxBatch} of {@link #batchHandler(Class, int, BatchJobHandler)}. */
    public static final int MAX_BATCH = 10_000;

    private final DataSource dataSource;
    private BatonConfig config = BatonConfig.defaults();
    private ObjectMapper mapper;
    private final Map<String, HandlerEntry<?>> handlers = new LinkedHashMap<>();
    private final Map<String, PeriodicJob> periodic = new LinkedHashMap<>();
    private final List<JobInterceptor> interceptors = new ArrayList<>();

    private Builder(DataSource dataSource) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    /**
     * The config; default {@link BatonConfig#defaults()}. To change one setting of the config set
     * so far (in a Spring Boot {@code BatonBuilderCustomizer}, say): {@code
     * builder.config(builder.config().toBuilder().maxRescues(5).build())}.
     */
    public Builder config(BatonConfig config) {
      this.config = Objects.requireNonNull(config, "config");
      return this;
    }

    /** The config set so far: {@link BatonConfig#defaults()} until one is set. */
    public BatonConfig config() {
      return config;
    }

    /**
     * The Jackson mapper for args and metadata; default: one with Java time support that ignores
     * unknown properties (so a field removed from an args record does not break old rows).
     */
    public Builder objectMapper(ObjectMapper mapper) {
      this.mapper = Objects.requireNonNull(mapper, "objectMapper");
      return this;
    }

    /** Registers {@code handler} for the kind of {@code argsType}, with the client's timeout. */
    public <A extends JobArgs> Builder handler(Class<A> argsType, JobHandler<A> handler) {
      return register(argsType, null, handler);
    }

    /**
     * Registers {@code handler} for the kind of {@code argsType} with its own timeout, which wins
     * over any other setting of the kind's timeout ({@link BatonConfig.Builder#kind}, {@link
     * KindSettings}).
     */
    public <A extends JobArgs> Builder handler(
        Class<A> argsType, Duration timeout, JobHandler<A> handler) {
      if (timeout == null || timeout.compareTo(Duration.ofMillis(10)) < 0) {
        throw new InvalidConfigException(
            "timeout of handler " + argsType.getName(), "at least 10 ms", timeout);
      }
      return register(argsType, timeout, handler);
    }

    /**
     * Registers {@code handler} for the kind of {@code argsType}: it works the kind's jobs in
     * batches of up to {@value #DEFAULT_MAX_BATCH}, with the client's timeout; see {@link
     * BatchJobHandler}.
     */
    public <A extends JobArgs> Builder batchHandler(Class<A> argsType, BatchJobHandler<A> handler) {
      return batchHandler(argsType, DEFAULT_MAX_BATCH, handler);
    }

    /**
     * Registers {@code handler} for the kind of {@code argsType}: it works the kind's jobs in
     * batches of up to {@code maxBatch} (1 to {@value #MAX_BATCH}), with the client's timeout; see
     * {@link BatchJobHandler}.
     */
    public <A extends JobArgs> Builder batchHandler(
        Class<A> argsType, int maxBatch, BatchJobHandler<A> handler) {
      return registerBatch(argsType, maxBatch, null, handler);
    }

    /**
     * As {@link #batchHandler(Class, int, BatchJobHandler)}, with a timeout of the kind's own (at
     * least 10 ms), counted for every job of a call from the call's start.
     */
    public <A extends JobArgs> Builder batchHandler(
        Class<A> argsType, int maxBatch, Duration timeout, BatchJobHandler<A> handler) {
      if (timeout == null || timeout.compareTo(Duration.ofMillis(10)) < 0) {
        throw new InvalidConfigException(
            "timeout of batch handler " + argsType.getName(), "at least 10 ms", timeout);
      }
      return registerBatch(argsType, maxBatch, timeout, handler);
    }

    private <A extends JobArgs> Builder registerBatch(
        Class<A> argsType, int maxBatch, Duration timeout, BatchJobHandler<A> handler) {
      Objects.requireNonNull(argsType, "argsType");
      Objects.requireNonNull(handler, "handler");
      if (maxBatch < 1 || maxBatch > MAX_BATCH) {
        throw new InvalidConfigException(
            "maxBatch of batch handler " + argsType.getName(), "1 to " + MAX_BATCH, maxBatch);
      }
      return put(
          new HandlerEntry<>(
              JobArgs.kindOf(argsType),
              argsType,
              null,
              new HandlerEntry.Settings(timeout, null),
              handler,
              maxBatch));
    }

    private <A extends JobArgs> Builder register(
        Class<A> argsType, Duration timeout, JobHandler<A> handler) {
      Objects.requireNonNull(argsType, "argsType");
      Objects.requireNonNull(handler, "handler");
      return put(new HandlerEntry<>(JobArgs.kindOf(argsType), argsType, handler, timeout));
    }

    private Builder put(HandlerEntry<?> entry) {
      String kind = entry.kind();
      Class<?> argsType = entry.argsType();
      HandlerEntry<?> previous = handlers.get(kind);
      if (previous != null) {
        throw new InvalidConfigException(
            "handler for kind \"" + kind + "\"",
            "registered once (already registered for " + previous.argsType().getName() + ")",
            argsType.getName());
      }
      handlers.put(kind, entry);
      return this;
    }

    /**
     * Registers a periodic job, enqueued by whichever node leads. Register the same ones on every
     * node that may lead.
     *
     * @throws InvalidConfigException if a periodic job of that name is already registered
     */
    public Builder periodic(PeriodicJob job) {
      Objects.requireNonNull(job, "periodic job");
      if (periodic.containsKey(job.name())) {
        throw new InvalidConfigException(
            "periodic job name", "unique per client (already registered)", job.name());
      }
      periodic.put(job.name(), job);
      return this;
    }

    /**
     * Adds an interceptor around this client's enqueues and handler runs (tracing, context
     * propagation); see {@link JobInterceptor}. The first one added is the outermost.
     */
    public Builder interceptor(JobInterceptor interceptor) {
      interceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
      return this;
    }

    /** Builds the client. It does no I/O until used. */
    public Baton build() {
      return new Baton(this);
    }
  }
}
