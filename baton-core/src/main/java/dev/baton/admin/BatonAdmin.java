package dev.baton.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.BatonConfig;
import dev.baton.EnqueueOptions;
import dev.baton.EnqueueResult;
import dev.baton.InvalidConfigException;
import dev.baton.Job;
import dev.baton.JobState;
import dev.baton.LeaderInfo;
import dev.baton.NodeInfo;
import dev.baton.QueueConfig;
import dev.baton.QueueInfo;
import dev.baton.internal.admission.BacklogCaps;
import dev.baton.internal.db.BacklogCapStore;
import dev.baton.internal.db.ClusterStore;
import dev.baton.internal.db.Db;
import dev.baton.internal.db.Leadership;
import dev.baton.internal.db.SchemaName;
import dev.baton.migrate.Migrator;
import java.sql.Connection;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Baton's operator API: every query and action an operator takes on a schema's jobs, queues and
 * cluster, for the {@code baton} command, the dashboard, the Spring Boot starter and an
 * application's own tools. Made from a {@code DataSource} and a schema (or a {@link BatonConfig});
 * it starts nothing and needs no client, no handler and no node.
 *
 * <ul>
 *   <li>Jobs: {@link #get}, {@link #list}, {@link #page} and {@link #count} (keyset pages for a
 *       person browsing), {@link #enqueue} by kind name, {@link #retry}, {@link #runNow}, {@link
 *       #cancel}, {@link #delete}.
 *   <li>Queues: {@link #pause}, {@link #resume}, {@link #setBacklogCap}, {@link #removeBacklogCap},
 *       {@link #limitConcurrency}, {@link #removeConcurrencyLimit}, {@link #limitRate}, {@link
 *       #queues} (which are paused, capped or limited), {@link #limits}, {@link #stats} (depth,
 *       age, throughput) and {@link #completions} (throughput over time).
 *   <li>Cluster: {@link #nodes}, {@link #leader}, {@link #periodic} schedules.
 * </ul>
 *
 * <p>This class is the one entry point; {@link JobAdmin}, {@link JobBrowser}, {@link StatsAdmin}
 * and {@link PeriodicAdmin} are its parts, whose result types it returns, and stay usable on their
 * own. A {@link dev.baton.Baton} client's operator methods ({@code job}, {@code cancel}, {@code
 * pauseQueue}, {@code resumeQueue}, {@code queues}, {@code nodes}, {@code leader}) are this API's,
 * on the client's schema and node id.
 *
 * <p>Actions run the statements a client runs, with the same notifications: pausing and resuming
 * tell every node over the schema's control channel (and resuming wakes the queue's workers),
 * cancelling a running job tells its holder, retrying and running now wake the queue's workers.
 * Each action checks the job's or queue's state in its own statement, so two operators, or an
 * operator and a worker, race cleanly; what an action did is in its result.
 *
 * <pre>{@code
 * BatonAdmin admin = new BatonAdmin(dataSource, "baton");
 * admin.pause("mail", "ops@example.com");
 * for (Job job : admin.list(JobAdmin.ListFilter.of(JobState.DISCARDED, "mail", null, 100))) {
 *   admin.retry(job.id(), "ops@example.com");
 * }
 * admin.resume("mail", "ops@example.com");
 * }</pre>
 *
 * <p>Thread-safe; every call runs in its own transaction on the data source. Does no I/O until
 * used.
 */
public final class BatonAdmin {
  private static final Logger log = LoggerFactory.getLogger(BatonAdmin.class);

  private final DataSource dataSource;
  private final SchemaName schema;
  private final JobAdmin jobs;
  private final JobBrowser browser;
  private final StatsAdmin stats;
  private final PeriodicAdmin periodic;
  private final ClusterStore cluster;
  private final BacklogCapStore caps;

  /** The largest backlog cap a queue may have: 100,000,000 jobs. */
  public static final int MAX_BACKLOG_CAP = 100_000_000;

  /**
   * How long a new backlog cap takes to reach every client at most, and how long {@link
   * #setBacklogCap} waits when the queue had none: 2.2 seconds (a client trusts its view of the
   * caps for 2 seconds from its read; the rest is margin for clocks that run at different rates).
   */
  public static final Duration CAP_PROPAGATION =
      BacklogCaps.VIEW_LIFETIME.plus(BacklogCaps.VIEW_LIFETIME.dividedBy(10));

  /**
   * The operator API of {@code schema}, enqueueing with {@link BatonConfig}'s default size limits.
   *
   * @throws InvalidConfigException if the schema name is not valid
   */
  public BatonAdmin(DataSource dataSource, String schema) {
    this(dataSource, schema, new JobAdmin(dataSource, schema));
  }

  /**
   * The operator API of the schema of clients configured as {@code config}, enqueueing with its
   * size limits ({@link BatonConfig#maxArgsBytes()}, {@link BatonConfig#maxMetadataBytes()}).
   */
  public BatonAdmin(DataSource dataSource, BatonConfig config) {
    this(dataSource, config.schema(), new JobAdmin(dataSource, config));
  }

  /**
   * The operator API as {@link #BatonAdmin(DataSource, BatonConfig)}, reading the JSON of jobs
   * (args, metadata, errors) with {@code mapper} rather than with exact decimals: a client passes
   * its own, so that {@code Baton.job(id)} gives the job its mapper makes.
   */
  public BatonAdmin(DataSource dataSource, BatonConfig config, ObjectMapper mapper) {
    this(dataSource, config.schema(), new JobAdmin(dataSource, config, mapper));
  }

  private BatonAdmin(DataSource dataSource, String schema, JobAdmin jobs) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.schema = SchemaName.of(schema);
    this.jobs = jobs;
    this.browser = new JobBrowser(dataSource, schema);
    this.stats = new StatsAdmin(dataSource, schema);
    this.periodic = new PeriodicAdmin(dataSource, schema);
    this.cluster = new ClusterStore(this.schema);
    this.caps = new BacklogCapStore(this.schema);
  }

  /** The schema this API works on. */
  public String schema() {
    return schema.name();
  }

  // ---------------------------------------------------------------- jobs

  /** The job with {@code id}, if it exists. */
  public Optional<Job> get(long id) {
    return jobs.get(id);
  }

  /**
   * The dependencies, dependents, output, durable steps and progress of job {@code id}, if it
   * exists. See {@link JobAdmin#workflow(long)}.
   */
  public Optional<JobWorkflow> workflow(long id) {
    return jobs.workflow(id);
  }

  /**
   * The uniqueness of job {@code id} (the states it holds its unique key in, and which job holds
   * the key now); empty when the job does not exist or is not unique. See {@link
   * JobAdmin#uniqueness}.
   */
  public Optional<JobAdmin.Uniqueness> uniqueness(long id) {
    return jobs.uniqueness(id);
  }

  /**
   * The jobs matching {@code filter}, newest first. See {@link JobAdmin#list(JobAdmin.ListFilter)}.
   */
  public List<Job> list(JobAdmin.ListFilter filter) {
    return jobs.list(filter);
  }

  /**
   * The jobs matching {@code filter}, newest first, read on the caller's {@code connection} in
   * whatever transaction it is in. See {@link JobAdmin#list(Connection, JobAdmin.ListFilter)}.
   */
  public List<Job> list(Connection connection, JobAdmin.ListFilter filter) {
    return jobs.list(connection, filter);
  }

  /**
   * One page of the jobs matching {@code filter}, after {@code cursor} (null for the first page),
   * in the order of the state filtered on. See {@link JobBrowser#page}.
   */
  public JobBrowser.Page page(JobBrowser.Filter filter, String cursor, int size) {
    return browser.page(filter, cursor, size);
  }

  /** The jobs matching {@code filter}, counted up to {@code cap}. See {@link JobBrowser#count}. */
  public long count(JobBrowser.Filter filter, long cap) {
    return browser.count(filter, cap);
  }

  /**
   * Enqueues a job of {@code kind} with {@code args} as its JSON args, no args class or handler
   * involved. See {@link JobAdmin#enqueue}.
   */
  public EnqueueResult enqueue(String kind, JsonNode args, EnqueueOptions options) {
    return jobs.enqueue(kind, args, options);
  }

  /**
   * Makes a job that is not running available now, recording {@code by} in its metadata. See {@link
   * JobAdmin#retry}.
   */
  public JobAdmin.RetryResult retry(long id, String by) {
    return jobs.retry(id, by);
  }

  /**
   * Makes a {@code scheduled} or {@code retryable} job available now, recording {@code by} as a
   * retry does; leaves a job in any other state as it is. See {@link JobAdmin#runNow}.
   */
  public JobAdmin.RunNowResult runNow(long id, String by) {
    return jobs.runNow(id, by);
  }

  /**
   * Cancels a job: a waiting one at once, a running one by telling its holder. Returns the state
   * after the call ({@code CANCELLED}, or {@code RUNNING} for a running job), empty when the job
   * does not exist or is final. See {@link JobAdmin#cancel}.
   */
  public Optional<JobState> cancel(long id) {
    return jobs.cancel(id);
  }

  /**
   * Cancels a job as {@link #cancel(long)}, recording {@code by} in its metadata ({@code
   * cancel_requested_by}). See {@link JobAdmin#cancel(long, String)}.
   */
  public Optional<JobState> cancel(long id, String by) {
    return jobs.cancel(id, by);
  }

  /**
   * Checks that the schema exists and is at the version this library needs, as a dashboard does
   * before it serves: a database that cannot be reached fails here, once, rather than on every
   * page.
   *
   * @throws dev.baton.SchemaNotMigratedException if the schema has no Baton tables or an older
   *     version
   * @throws dev.baton.SchemaTooNewException if it is at a version newer than this library knows
   * @throws dev.baton.BatonException if the database cannot be reached
   */
  public void requireLatestSchema() {
    new Migrator(dataSource, schema.name()).requireLatest();
  }

  /**
   * Retries many jobs in batched statements; returns how many were retried. See {@link
   * JobAdmin#retryAll}.
   */
  public long retryAll(List<Long> ids, String by) {
    return jobs.retryAll(ids, by);
  }

  /**
   * Makes the waiting ones of many jobs available now; returns how many. See {@link
   * JobAdmin#runNowAll}.
   */
  public long runNowAll(List<Long> ids, String by) {
    return jobs.runNowAll(ids, by);
  }

  /**
   * Cancels many jobs in batched statements; returns how many changed. See {@link
   * JobAdmin#cancelAll}.
   */
  public long cancelAll(List<Long> ids, String by) {
    return jobs.cancelAll(ids, by);
  }

  /** Deletes many jobs that are not running; returns how many. See {@link JobAdmin#deleteAll}. */
  public long deleteAll(List<Long> ids) {
    return jobs.deleteAll(ids);
  }

  /** Deletes a job that is not running. See {@link JobAdmin#delete}. */
  public JobAdmin.DeleteResult delete(long id) {
    return jobs.delete(id);
  }

  // ---------------------------------------------------------------- queues

  /**
   * Pauses {@code queue} on every node: no node claims its jobs until {@link #resume}. Jobs already
   * running, and those a node has already claimed ahead, finish. Enqueueing goes on. Pausing a
   * paused queue does nothing (the first pause's time and author stay). Every node hears of it over
   * the schema's control channel at commit.
   *
   * @param queue the queue; it need not be known to any node yet
   * @param by who paused it, recorded as {@link QueueInfo#pausedBy()}; may be null
   * @throws InvalidConfigException if {@code queue} is not a valid queue name
   */
  public void pause(String queue, String by) {
    QueueConfig.requireValidName(queue);
    cluster.pause(dataSource, queue, by);
    log.info("queue {} paused by node {}", queue, by);
  }

  /**
   * Resumes {@code queue} on every node and wakes the workers of every node working it (both over
   * NOTIFY, at commit). Returns false if it was not paused.
   *
   * @param queue the queue
   * @param by who resumed it, for the log
   * @throws InvalidConfigException if {@code queue} is not a valid queue name
   */
  public boolean resume(String queue, String by) {
    QueueConfig.requireValidName(queue);
    boolean resumed = cluster.resume(dataSource, queue);
    if (resumed) {
      log.info("queue {} resumed by node {}", queue, by);
    }
    return resumed;
  }

  /**
   * Sets {@code queue}'s cluster-wide concurrency limit: from the commit of this call on, no claim
   * on any node lets more than {@code limit} of the queue's jobs run at once, counting every job in
   * state running (also those of a node that crashed, froze or lost its connection, until they are
   * rescued). Jobs over the limit stay available and use no attempt. Jobs already running when the
   * limit is set or lowered finish; the queue then claims nothing until fewer than {@code limit}
   * run. Every node hears of it at commit (over NOTIFY, else at its next poll); no restart. A limit
   * of 0 claims nothing, like a pause that lets enqueues and running jobs go on.
   *
   * @param queue the queue; it need not be known to any node yet
   * @param limit the most jobs of the queue running across the cluster, 0..1,000,000
   * @param by who set it, for the log
   * @throws InvalidConfigException if {@code queue} is not a valid queue name or {@code limit} is
   *     out of range
   */
  public void limitConcurrency(String queue, int limit, String by) {
    QueueConfig.requireValidName(queue);
    if (limit < 0 || limit > BatonConfig.MAX_CONCURRENCY_LIMIT) {
      throw new InvalidConfigException(
          "concurrency limit of queue \"" + queue + "\"", "0..1000000", limit);
    }
    cluster.limitConcurrency(dataSource, queue, limit);
    log.info("queue {} limited to {} running jobs across the cluster by {}", queue, limit, by);
  }

  /**
   * Removes {@code queue}'s cluster-wide concurrency limit: each node's own concurrency bounds it
   * again, and its claims are the plain claim once every node has heard (at commit over NOTIFY,
   * else at its next poll). Removing a limit that is not set does nothing.
   *
   * @param queue the queue
   * @param by who removed it, for the log
   * @throws InvalidConfigException if {@code queue} is not a valid queue name
   */
  public void removeConcurrencyLimit(String queue, String by) {
    QueueConfig.requireValidName(queue);
    cluster.limitConcurrency(dataSource, queue, null);
    log.info("queue {}: cluster-wide concurrency limit removed by {}", queue, by);
  }

  /**
   * Limits {@code queue} per key: from the commit of this call on, no claim on any node lets more
   * than {@code limit} of the queue's jobs with one key run at once, the key of a job being the
   * text of its args' field {@code argsField} ({@code args ->> argsField}; a job without the field
   * has the key {@code ""}). Counted as {@link #limitConcurrency} counts (every job in state
   * running, also a crashed or frozen node's until rescued); jobs over the limit stay available and
   * use no attempt, and jobs of other keys go past them. A queue-wide limit, if set, holds as well.
   * Every node hears of it at commit (else at its next poll); no restart. The queue gets an index
   * of its available jobs by key, built without blocking writes before this returns (so on a large
   * table it takes as long as the build); a claim of the queue reads one index probe per key
   * waiting and the jobs it takes. Removing the limit drops the index. When the role running this
   * does not own the job table, the index is not made (a warning names the statement for the
   * table's owner to run) and each claim ranks the queue's whole backlog instead.
   *
   * @param queue the queue
   * @param argsField the top-level field of the jobs' args that holds the key, 1-128 characters
   * @param limit jobs of one key running at once across the cluster, 1..1,000,000
   * @param by who set it, for the log
   * @throws InvalidConfigException if a value is out of range
   */
  public void limitConcurrencyPerKey(String queue, String argsField, int limit, String by) {
    requireValidKeyLimit(queue, argsField, limit);
    cluster.limitConcurrencyPerKey(dataSource, queue, argsField, limit);
    syncKeyIndexes();
    log.info(
        "queue {} limited to {} running jobs per key (args field {}) across the cluster by {}",
        queue,
        limit,
        argsField,
        by);
  }

  /**
   * Removes {@code queue}'s concurrency limit per key (a queue-wide limit stays). Removing a limit
   * that is not set does nothing.
   *
   * @param queue the queue
   * @param by who removed it, for the log
   * @throws InvalidConfigException if {@code queue} is not a valid queue name
   */
  public void removeConcurrencyLimitPerKey(String queue, String by) {
    QueueConfig.requireValidName(queue);
    cluster.limitConcurrencyPerKey(dataSource, queue, null, null);
    syncKeyIndexes();
    log.info("queue {}: concurrency limit per key removed by {}", queue, by);
  }

  /**
   * Limits how many jobs of {@code queue} start (are claimed) across the cluster: at most {@code
   * limit} in any window of {@code period}, a sliding window over the recorded start times (each
   * claim's database time), not fixed buckets, so a period boundary never lets twice the rate
   * through. Each claim of the queue counts the starts of the last period after locking the queue's
   * row and takes only what is left; jobs over the rate stay available and use no attempt. A re-run
   * (retry, rescue) is a start like any other. Holds together with a queue-wide or per-key
   * concurrency limit. Every node hears of it at commit (else at its next poll); no restart.
   *
   * @param queue the queue
   * @param limit starts per period, 1..1,000,000
   * @param period the window, 1 ms..1 day
   * @param by who set it, for the log
   * @throws InvalidConfigException if a value is out of range
   */
  public void limitRate(String queue, int limit, Duration period, String by) {
    QueueConfig.requireValidName(queue);
    requireValidRate(queue, limit, period);
    cluster.limitRate(dataSource, queue, limit, (int) period.toMillis(), null);
    syncKeyIndexes();
    log.info(
        "queue {} limited to {} starts per {} across the cluster by {}", queue, limit, period, by);
  }

  /**
   * Limits how many jobs of {@code queue} start per key across the cluster: at most {@code limit}
   * jobs of each key (the text of the args' top-level field {@code argsField}; a job without it has
   * the key {@code ""}) in any window of {@code period}, a sliding window over the recorded start
   * times as {@link #limitRate} has, counted per key. Replaces a rate limit of the whole queue
   * ({@link #limitRate} replaces this one). A queue limited per key in concurrency as well must use
   * the same field for both. Jobs of a key over its rate wait, without using an attempt, while jobs
   * of other keys go past them; keys take turns as under a concurrency limit per key.
   *
   * @param queue the queue
   * @param argsField the args field whose value is the key, 1-128 characters
   * @param limit starts per key per period, 1..1,000,000
   * @param period the window, 1 ms..1 day
   * @param by who set it, for the log
   * @throws InvalidConfigException if a value is out of range
   * @throws dev.baton.BatonException if the queue is limited per key in concurrency on another
   *     field
   */
  public void limitRatePerKey(
      String queue, String argsField, int limit, Duration period, String by) {
    QueueConfig.requireValidName(queue);
    if (argsField == null || argsField.isEmpty() || argsField.length() > 128) {
      throw new InvalidConfigException(
          "rate key field of queue \"" + queue + "\"", "1-128 characters", argsField);
    }
    requireValidRate(queue, limit, period);
    cluster.limitRate(dataSource, queue, limit, (int) period.toMillis(), argsField);
    syncKeyIndexes();
    log.info(
        "queue {} limited to {} starts per {} per key (args field {}) across the cluster by {}",
        queue,
        limit,
        period,
        argsField,
        by);
  }

  /**
   * Sets {@code queue}'s concurrency limit per key and its rate limit per key together, on one args
   * field, in one statement: as {@link #limitConcurrencyPerKey} and {@link #limitRatePerKey}, which
   * refuse a field other than the one the queue's other limit per key uses (the database keeps one
   * key field per queue), so moving both limits to another field takes this call.
   *
   * @param queue the queue
   * @param argsField the args field whose value is the key, 1-128 characters
   * @param keyLimit jobs of one key running at once across the cluster, 1..1,000,000
   * @param rateLimit starts per key per period, 1..1,000,000
   * @param period the rate's window, 1 ms..1 day
   * @param by who set them, for the log
   * @throws InvalidConfigException if a value is out of range
   */
  public void limitPerKey(
      String queue, String argsField, int keyLimit, int rateLimit, Duration period, String by) {
    requireValidKeyLimit(queue, argsField, keyLimit);
    requireValidRate(queue, rateLimit, period);
    cluster.limitPerKey(
        dataSource,
        queue,
        new ClusterStore.KeyLimits(argsField, keyLimit, rateLimit, (int) period.toMillis()));
    syncKeyIndexes();
    log.info(
        "queue {} limited to {} running jobs and {} starts per {} per key (args field {}) across"
            + " the cluster by {}",
        queue,
        keyLimit,
        rateLimit,
        period,
        argsField,
        by);
  }

  // Each queue limited per key has its key index, and no other has one (schema version 13).
  private void syncKeyIndexes() {
    cluster.syncKeyIndexes(dataSource).forEach(log::warn);
  }

  private static void requireValidKeyLimit(String queue, String argsField, int limit) {
    QueueConfig.requireValidName(queue);
    if (argsField == null || argsField.isEmpty() || argsField.length() > 128) {
      throw new InvalidConfigException(
          "key field of queue \"" + queue + "\"", "1-128 characters", argsField);
    }
    if (limit < 1 || limit > BatonConfig.MAX_CONCURRENCY_LIMIT) {
      throw new InvalidConfigException(
          "concurrency limit per key of queue \"" + queue + "\"", "1..1000000", limit);
    }
  }

  private static void requireValidRate(String queue, int limit, Duration period) {
    if (limit < 1 || limit > BatonConfig.MAX_CONCURRENCY_LIMIT) {
      throw new InvalidConfigException(
          "rate limit of queue \"" + queue + "\"", "1..1000000", limit);
    }
    if (period == null || period.toMillis() < 1 || period.compareTo(Duration.ofDays(1)) > 0) {
      throw new InvalidConfigException(
          "rate limit period of queue \"" + queue + "\"", "1 ms..1 day", period);
    }
  }

  /**
   * Removes {@code queue}'s rate limit, of the whole queue or per key, and deletes the queue's
   * recorded starts in the same transaction (a rate set again later starts from an empty window).
   * Removing a limit that is not set does nothing.
   *
   * @param queue the queue
   * @param by who removed it, for the log
   * @throws InvalidConfigException if {@code queue} is not a valid queue name
   */
  public void removeRateLimit(String queue, String by) {
    QueueConfig.requireValidName(queue);
    cluster.removeRateLimit(dataSource, queue);
    syncKeyIndexes();
    log.info("queue {}: rate limit removed by {}", queue, by);
  }

  /**
   * Sets the weight of one key in {@code queue}'s fair share: where keys take turns (a queue
   * limited per key, in concurrency or in rate), a key of weight {@code w} takes up to {@code w}
   * jobs a turn, so two keys with long backlogs, of weights 3 and 1, start jobs about 3:1 (each
   * within its own limits). Every key weighs 1 unless set; a weight of 1 removes the setting. Read
   * by every claim of the queue: no restart, no announcement. Weights of keys with no job waiting
   * cost nothing.
   *
   * @param queue the queue
   * @param key the key (the text of the args field the queue is limited by; {@code ""} for jobs
   *     without it), at most 1,000 characters
   * @param weight jobs per turn, 1..1000
   * @param by who set it, for the log
   * @throws InvalidConfigException if a value is out of range
   */
  public void weighKey(String queue, String key, int weight, String by) {
    QueueConfig.requireValidName(queue);
    if (key == null || key.length() > 1000) {
      throw new InvalidConfigException(
          "key of queue \"" + queue + "\"",
          "0-1000 characters",
          key == null ? null : "a longer key");
    }
    if (weight < 1 || weight > 1000) {
      throw new InvalidConfigException(
          "weight of key \"" + key + "\" of queue \"" + queue + "\"", "1..1000", weight);
    }
    cluster.weighKey(dataSource, queue, key, weight);
    log.info("queue {}: key {} weighs {} in the fair share, set by {}", queue, key, weight, by);
  }

  /**
   * The weights set for {@code queue}'s keys ({@link #weighKey}), by key; a key not named weighs 1.
   *
   * @param queue the queue
   * @return the weights above 1, by key, in key order; empty when none is set
   */
  public java.util.SortedMap<String, Integer> keyWeights(String queue) {
    QueueConfig.requireValidName(queue);
    String json = cluster.keyWeights(dataSource, queue);
    java.util.SortedMap<String, Integer> out = new java.util.TreeMap<>();
    if (json != null) {
      try {
        new ObjectMapper()
            .readTree(json)
            .fields()
            .forEachRemaining(e -> out.put(e.getKey(), e.getValue().asInt()));
      } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
        throw new IllegalStateException("key weights of queue " + queue + " are not JSON", e);
      }
    }
    return out;
  }

  /**
   * Every queue the cluster knows (a control row, live jobs, or a node working it), by name, with
   * its pause, its backlog cap and its cluster-wide concurrency limit.
   */
  public List<QueueInfo> queues() {
    Map<String, Integer> caps = backlogCaps();
    List<QueueInfo> out = new ArrayList<>();
    for (ClusterStore.QueueRow q : cluster.queues(dataSource)) {
      out.add(
          new QueueInfo(
              q.name(),
              q.pausedAt() != null,
              q.pausedAt(),
              q.pausedBy(),
              caps.get(q.name()),
              q.concurrencyLimit()));
    }
    return out;
  }

  /**
   * Sets {@code queue}'s backlog cap: from then on an enqueue that would leave more than {@code
   * cap} jobs waiting (available, scheduled, retryable) in it is refused with {@link
   * dev.baton.BacklogCapExceededException}, writing nothing (docs/backlog-caps.md). Jobs already
   * waiting stay, however many; retries, snoozes and rescues of jobs already admitted are never
   * refused.
   *
   * <p>Every client learns of a new cap within {@link #CAP_PROPAGATION}: when the queue had no cap
   * before, this call returns only after that time, so that once it has returned every enqueue of
   * every client checks the cap. Changing or removing a cap takes effect at once (the database
   * reads the cap at each check).
   *
   * @param queue the queue; it need not be known yet
   * @param cap the cap, 1..100,000,000 jobs
   * @param by who set it, for the log; may be null
   * @return the cap the queue had before, if any
   * @throws InvalidConfigException if {@code queue} is not a valid queue name or {@code cap} is out
   *     of range
   */
  public OptionalInt setBacklogCap(String queue, int cap, String by) {
    QueueConfig.requireValidName(queue);
    requireValidBacklogCap(queue, cap);
    OptionalInt before =
        Db.inTransaction(
            dataSource,
            "cannot set the backlog cap of queue " + queue,
            c -> caps.setCap(c, queue, cap));
    log.info("queue {} backlog cap set to {} by {} (was {})", queue, cap, by, before);
    if (before.isEmpty()) {
      sleepUninterruptibly(CAP_PROPAGATION);
    }
    return before;
  }

  /**
   * Removes {@code queue}'s backlog cap, at once for every client. Returns false if it had none.
   *
   * @param by who removed it, for the log; may be null
   * @throws InvalidConfigException if {@code queue} is not a valid queue name
   */
  public boolean removeBacklogCap(String queue, String by) {
    QueueConfig.requireValidName(queue);
    boolean removed =
        Db.inTransaction(
            dataSource,
            "cannot remove the backlog cap of queue " + queue,
            c -> caps.removeCap(c, queue));
    if (removed) {
      log.info("queue {} backlog cap removed by {}", queue, by);
    }
    return removed;
  }

  /** The queues that have a backlog cap, by name, with their caps. */
  public Map<String, Integer> backlogCaps() {
    return Db.inTransaction(dataSource, "cannot read the backlog caps", caps::caps);
  }

  /**
   * Checks a backlog cap's value: 1..{@value #MAX_BACKLOG_CAP}.
   *
   * @throws InvalidConfigException naming the queue, the range and the value, if it is out of range
   */
  public static int requireValidBacklogCap(String queue, int cap) {
    if (cap < 1 || cap > MAX_BACKLOG_CAP) {
      throw new InvalidConfigException(
          "backlog cap of queue \"" + queue + "\"", "1.." + MAX_BACKLOG_CAP, cap);
    }
    return cap;
  }

  private static void sleepUninterruptibly(Duration d) {
    long end = System.nanoTime() + d.toNanos();
    boolean interrupted = false;
    long left;
    while ((left = end - System.nanoTime()) > 0) {
      try {
        TimeUnit.NANOSECONDS.sleep(left);
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Per-queue figures: depth, age of the oldest waiting job, running, discarded, completions and
   * failures over 5 minutes and an hour. See {@link StatsAdmin#queues()}, which this is.
   *
   * @throws dev.baton.SchemaNotMigratedException if the schema has no Baton tables, or is older
   *     than version 3
   */
  public List<StatsAdmin.QueueStats> stats() {
    return stats.queues();
  }

  /**
   * Every queue with a cluster-wide concurrency limit: the limit, the jobs running (the share of
   * the limit in use) and the jobs waiting for the limit. See {@link StatsAdmin#limits()}, which
   * this is.
   */
  public List<StatsAdmin.QueueLimit> limits() {
    return stats.limits();
  }

  /**
   * Every queue with a limit of any kind (queue-wide, per key, rate), with how much of each is in
   * use and the jobs waiting for them. See {@link StatsAdmin#limitsInUse()}, which this is.
   */
  public List<StatsAdmin.LimitsInUse> limitsInUse() {
    return stats.limitsInUse();
  }

  /**
   * Completions per queue over the last {@code window}, in buckets of {@code bucket}. See {@link
   * StatsAdmin#completions}.
   */
  public List<StatsAdmin.QueueCompletions> completions(Duration window, Duration bucket) {
    return stats.completions(window, bucket);
  }

  /**
   * The failed attempts of the last {@code window}, grouped by queue, kind, error and root cause,
   * rescues told apart. See {@link StatsAdmin#failures}.
   */
  public List<StatsAdmin.FailureGroup> failures(Duration window, int limit) {
    return stats.failures(window, limit);
  }

  /**
   * Wait and run time percentiles per queue and kind of the latest completions. See {@link
   * StatsAdmin#latencies}.
   */
  public List<StatsAdmin.Latency> latencies(Duration window, int sample) {
    return stats.latencies(window, sample);
  }

  /**
   * Completed, failed, rescued and cancelled jobs per queue over the last {@code range} (up to 7
   * days), in buckets of {@code bucket}, from the history the leader keeps. See {@link
   * StatsAdmin#history}.
   */
  public List<StatsAdmin.QueueHistory> history(Duration range, Duration bucket) {
    return stats.history(range, bucket);
  }

  /**
   * The kinds of which a job of {@code queue} (null: any queue) finished in the last day, by name.
   * See {@link StatsAdmin#kinds}.
   */
  public List<String> kinds(String queue) {
    return stats.kinds(queue);
  }

  // ---------------------------------------------------------------- cluster

  /** The nodes in the registry, by id. */
  public List<NodeInfo> nodes() {
    List<NodeInfo> out = new ArrayList<>();
    for (ClusterStore.NodeRow n : cluster.nodes(dataSource)) {
      out.add(
          new NodeInfo(
              n.id(), n.host(), n.pid(), n.queues(), n.version(), n.startedAt(), n.heartbeatAt()));
    }
    return out;
  }

  /** The maintenance leader as the database records it, if any node was ever elected. */
  public Optional<LeaderInfo> leader() {
    ClusterStore.LeaderRow r = cluster.leader(dataSource, Leadership.MAINTENANCE);
    return Optional.ofNullable(r)
        .map(l -> new LeaderInfo(l.role(), l.leaderId(), l.term(), l.electedAt(), l.expiresAt()));
  }

  /** The periodic schedules a leader has recorded, by name, next due times in UTC. */
  public List<PeriodicAdmin.PeriodicInfo> periodic() {
    return periodic.list();
  }

  /**
   * The periodic schedules, next due times computed in the zone {@code zones} gives for a name. See
   * {@link PeriodicAdmin#list(Map)}.
   */
  public List<PeriodicAdmin.PeriodicInfo> periodic(Map<String, ZoneId> zones) {
    return periodic.list(zones);
  }
}
