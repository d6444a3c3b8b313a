package dev.baton.admin;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.baton.BatonConfig;
import dev.baton.BatonException;
import dev.baton.EnqueueOptions;
import dev.baton.EnqueueResult;
import dev.baton.InvalidJobException;
import dev.baton.Job;
import dev.baton.JobArgs;
import dev.baton.JobState;
import dev.baton.internal.admission.BacklogCaps;
import dev.baton.internal.db.AdminStore;
import dev.baton.internal.db.Db;
import dev.baton.internal.db.EnqueueStore;
import dev.baton.internal.db.JobRow;
import dev.baton.internal.db.SchemaName;
import dev.baton.internal.db.WorkflowStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;

/**
 * Operator actions on jobs, the job part of the operator API {@link BatonAdmin}: list jobs by
 * state, queue and kind; enqueue a job by kind name with raw JSON args (no args class, no handler
 * needed); retry a job that is not running; run a waiting job now; cancel a job; delete a job that
 * is not running. The statements are {@code internal.db.AdminStore}'s.
 *
 * <p>Thread-safe; each call runs in its own autocommit statement on {@code dataSource}. Retry and
 * delete check the job's state in their {@code WHERE} clause, so they race cleanly with a worker:
 * when a claim takes the job first, the statement waits for the claim's row lock, re-reads the row,
 * finds it {@code running} and changes nothing ({@link RetryOutcome#RUNNING}, {@link
 * DeleteOutcome#RUNNING}); when retry or delete goes first, the claim never sees the job as it was.
 * A running job is never retried or deleted: cancel it first ({@link #cancel}).
 *
 * <pre>{@code
 * JobAdmin admin = new JobAdmin(dataSource, "baton");
 * for (Job job : admin.list(JobAdmin.ListFilter.of(JobState.DISCARDED, null, null, 100))) {
 *   admin.retry(job.id(), "ops@example.com");
 * }
 * }</pre>
 */
public final class JobAdmin {

  /** Jobs returned by {@link #list} when no limit is given: 100. */
  public static final int DEFAULT_LIST_LIMIT = 100;

  /** Most jobs one {@link #list} call returns: 10,000. */
  public static final int MAX_LIST_LIMIT = 10_000;

  private final DataSource dataSource;
  private final SchemaName schema;
  private final int maxArgsBytes;
  private final int maxMetadataBytes;
  private final EnqueueStore enqueueStore;
  private final AdminStore store;
  private final WorkflowStore workflows;
  private final ObjectMapper mapper;

  /**
   * An admin of the jobs in {@code schema}, checking enqueued args against {@link
   * BatonConfig#DEFAULT_MAX_ARGS_BYTES}. Does no I/O until used.
   *
   * @throws dev.baton.InvalidConfigException if the schema name is not valid
   */
  public JobAdmin(DataSource dataSource, String schema) {
    this(
        dataSource,
        schema,
        BatonConfig.DEFAULT_MAX_ARGS_BYTES,
        BatonConfig.DEFAULT_MAX_METADATA_BYTES);
  }

  /**
   * An admin of the jobs of clients configured as {@code config}: its schema, and its {@link
   * BatonConfig#maxArgsBytes()} for the args of {@link #enqueue}. Does no I/O until used.
   */
  public JobAdmin(DataSource dataSource, BatonConfig config) {
    this(
        dataSource,
        Objects.requireNonNull(config, "config").schema(),
        config.maxArgsBytes(),
        config.maxMetadataBytes());
  }

  /**
   * An admin as {@link #JobAdmin(DataSource, BatonConfig)} that reads the JSON of jobs with {@code
   * mapper}: a client's own, so that the client's reads through {@link BatonAdmin} give the jobs
   * its mapper makes.
   */
  JobAdmin(DataSource dataSource, BatonConfig config, ObjectMapper mapper) {
    this(
        dataSource,
        Objects.requireNonNull(config, "config").schema(),
        config.maxArgsBytes(),
        config.maxMetadataBytes(),
        Objects.requireNonNull(mapper, "mapper"));
  }

  private JobAdmin(DataSource dataSource, String schema, int maxArgsBytes, int maxMetadataBytes) {
    this(dataSource, schema, maxArgsBytes, maxMetadataBytes, exactMapper());
  }

  private JobAdmin(
      DataSource dataSource,
      String schema,
      int maxArgsBytes,
      int maxMetadataBytes,
      ObjectMapper mapper) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.schema = SchemaName.of(schema);
    this.maxArgsBytes = maxArgsBytes;
    this.maxMetadataBytes = maxMetadataBytes;
    // No refresh thread: the operator API starts none; an enqueue reads the caps when its view is
    // older than BacklogCaps.VIEW_LIFETIME.
    this.enqueueStore =
        new EnqueueStore(this.schema, new BacklogCaps(dataSource, this.schema, false));
    this.store = new AdminStore(this.schema);
    this.workflows = new WorkflowStore(this.schema);
    this.mapper = mapper;
  }

  // Numbers in the jobs read are shown as stored: decimals as BigDecimal, not rounded to double.
  private static ObjectMapper exactMapper() {
    return new ObjectMapper()
        .registerModule(new JavaTimeModule())
        .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
        .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
        .setNodeFactory(JsonNodeFactory.withExactBigDecimals(true));
  }

  /**
   * Which jobs {@link #list} returns: those matching every non-null filter, newest (highest id)
   * first, at most {@code limit}.
   *
   * @param state only jobs in this state, or null for any
   * @param queue only jobs in this queue, or null for any
   * @param kind only jobs of this kind, or null for any
   * @param limit most jobs returned, 1..{@value JobAdmin#MAX_LIST_LIMIT}
   */
  public record ListFilter(JobState state, String queue, String kind, int limit) {

    /**
     * Validates the limit.
     *
     * @throws IllegalArgumentException if {@code limit} is outside 1..{@value
     *     JobAdmin#MAX_LIST_LIMIT}
     */
    public ListFilter {
      if (limit < 1 || limit > MAX_LIST_LIMIT) {
        throw new IllegalArgumentException(
            "invalid job list filter: limit must be 1.." + MAX_LIST_LIMIT + ", got " + limit);
      }
    }

    /** Every job, newest first, at most {@value JobAdmin#DEFAULT_LIST_LIMIT}. */
    public static ListFilter all() {
      return new ListFilter(null, null, null, DEFAULT_LIST_LIMIT);
    }

    /** A filter; null means any. */
    public static ListFilter of(JobState state, String queue, String kind, int limit) {
      return new ListFilter(state, queue, kind, limit);
    }
  }

  /** What {@link #retry} did. */
  public enum RetryOutcome {
    /** The job was made available now. */
    RETRIED,
    /** The job was available already; nothing changed. */
    ALREADY_AVAILABLE,
    /** The job is running (held by a worker); nothing changed. Cancel it first. */
    RUNNING,
    /**
     * The job is pending (it waits for its dependencies); nothing changed. Retry its failed
     * dependency, or cancel it.
     */
    PENDING,
    /** No job has this id. */
    NOT_FOUND
  }

  /**
   * The result of {@link #retry}.
   *
   * @param outcome what happened
   * @param job the job after the call (retried or left as it was), or null for {@code NOT_FOUND}
   * @param previousState the state before the call, or null for {@code NOT_FOUND}
   */
  public record RetryResult(RetryOutcome outcome, Job job, JobState previousState) {}

  /** What {@link #runNow} did. */
  public enum RunNowOutcome {
    /** The job was waiting for its run-at time or its retry, and is available now. */
    MADE_AVAILABLE,
    /** The job was available already; nothing changed. */
    ALREADY_AVAILABLE,
    /**
     * The job is running, or final; nothing changed. A final job runs again by {@link #retry}; a
     * running one is cancelled first.
     */
    NOT_WAITING,
    /** No job has this id. */
    NOT_FOUND
  }

  /**
   * The result of {@link #runNow}.
   *
   * @param outcome what happened
   * @param job the job after the call (made available or left as it was), or null for {@code
   *     NOT_FOUND}
   * @param previousState the state before the call, or null for {@code NOT_FOUND}
   */
  public record RunNowResult(RunNowOutcome outcome, Job job, JobState previousState) {}

  /** What {@link #delete} did. */
  public enum DeleteOutcome {
    /** The job's row was deleted. */
    DELETED,
    /** The job is running (held by a worker); nothing changed. Cancel it first. */
    RUNNING,
    /** No job has this id. */
    NOT_FOUND
  }

  /**
   * The result of {@link #delete}.
   *
   * @param outcome what happened
   * @param job the job as it was deleted, or as it is when refused; null for {@code NOT_FOUND}
   */
  public record DeleteResult(DeleteOutcome outcome, Job job) {}

  /** The schema this admin works on. */
  public String schema() {
    return schema.name();
  }

  /** The job with {@code id}, if it exists. */
  public Optional<Job> get(long id) {
    return Optional.ofNullable(
        Db.inTransaction(dataSource, "cannot read job (id=" + id + ")", c -> read(c, id)));
  }

  /**
   * The dependencies, dependents, output, steps and progress of job {@code id}, if it exists: three
   * reads in one transaction.
   */
  public Optional<JobWorkflow> workflow(long id) {
    return Optional.ofNullable(
        Db.inExplicitTransaction(
            dataSource,
            "cannot read the workflow of job (id=" + id + ")",
            c -> {
              WorkflowStore.Records r = workflows.records(c, id);
              if (r == null) {
                return null;
              }
              List<dev.baton.Dependency> dependencies = new java.util.ArrayList<>();
              for (WorkflowStore.EdgeRow e : workflows.dependencies(c, id)) {
                dependencies.add(
                    new dev.baton.Dependency(
                        e.id(),
                        e.name(),
                        e.state() == null ? JobState.COMPLETED : JobState.fromDb(e.state()),
                        json(e.output())));
              }
              List<JobWorkflow.Dependent> dependents = new java.util.ArrayList<>();
              for (WorkflowStore.EdgeRow e : workflows.dependents(c, id)) {
                dependents.add(
                    new JobWorkflow.Dependent(
                        e.id(),
                        e.name(),
                        dev.baton.DependencyFailure.valueOf(
                            e.onFailure().toUpperCase(java.util.Locale.ROOT)),
                        e.state() == null ? null : JobState.fromDb(e.state())));
              }
              List<JobWorkflow.StepRecord> steps = new java.util.ArrayList<>();
              JsonNode stepsJson = json(r.steps());
              if (stepsJson != null) {
                stepsJson
                    .fields()
                    .forEachRemaining(
                        f ->
                            steps.add(
                                new JobWorkflow.StepRecord(
                                    f.getKey(),
                                    f.getValue().path("attempt").asInt(),
                                    instant(f.getValue().path("at")),
                                    f.getValue().get("result"))));
                steps.sort(java.util.Comparator.comparing(JobWorkflow.StepRecord::at));
              }
              JsonNode p = json(r.progress());
              JobWorkflow.Progress progress =
                  p == null
                      ? null
                      : new JobWorkflow.Progress(
                          p.path("fraction").asDouble(),
                          p.path("message").isNull() ? null : p.path("message").asText(null),
                          instant(p.path("at")));
              return new JobWorkflow(dependencies, dependents, json(r.output()), steps, progress);
            }));
  }

  private JsonNode json(String text) throws java.sql.SQLException {
    if (text == null) {
      return null;
    }
    try {
      return mapper.readTree(text);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new java.sql.SQLException("stored JSON does not parse: " + e.getOriginalMessage(), e);
    }
  }

  private static java.time.Instant instant(JsonNode at) {
    return at.isTextual() ? java.time.OffsetDateTime.parse(at.asText()).toInstant() : null;
  }

  /** The jobs matching {@code filter}, newest first. */
  public List<Job> list(ListFilter filter) {
    Objects.requireNonNull(filter, "filter");
    return Db.inTransaction(
        dataSource, "cannot list jobs (schema=" + schema + ")", c -> listOn(c, filter));
  }

  /**
   * The jobs matching {@code filter}, newest first, read on the caller's {@code connection} in
   * whatever transaction it is in: jobs that transaction enqueued and has not committed are listed
   * too (a test that enqueues inside a transaction it rolls back checks its jobs this way).
   */
  public List<Job> list(Connection connection, ListFilter filter) {
    Objects.requireNonNull(connection, "connection");
    Objects.requireNonNull(filter, "filter");
    try {
      return listOn(connection, filter);
    } catch (SQLException e) {
      throw Db.wrap("cannot list jobs (schema=" + schema + ")", e);
    }
  }

  private List<Job> listOn(Connection c, ListFilter filter) throws SQLException {
    List<JobRow> rows =
        store.list(
            c,
            filter.state() == null ? null : filter.state().dbName(),
            filter.queue(),
            filter.kind(),
            filter.limit());
    return rows.stream().map(r -> r.toJob(mapper)).toList();
  }

  /**
   * Enqueues a job of {@code kind} with {@code args} as its JSON args, committed when this returns.
   * Unlike {@link dev.baton.Baton#enqueue}, no args class and no handler are involved, so any valid
   * kind is accepted (an operator enqueueing a kind that some worker handles). An idempotency key
   * already held returns the existing job, as there.
   *
   * @throws InvalidJobException if the kind is not 1-128 of {@code A-Z a-z 0-9 _ . : - /}, the args
   *     are not a JSON object or are over the limit ({@link BatonConfig#maxArgsBytes()} of the
   *     config this admin was made with, else {@value BatonConfig#DEFAULT_MAX_ARGS_BYTES} bytes),
   *     the metadata cannot be serialised or is over its limit ({@link
   *     BatonConfig#maxMetadataBytes()}, else {@value BatonConfig#DEFAULT_MAX_METADATA_BYTES}), or
   *     any text (args, metadata, key) is not valid Unicode or holds NUL
   */
  public EnqueueResult enqueue(String kind, JsonNode args, EnqueueOptions options) {
    Objects.requireNonNull(options, "options");
    if (!JobArgs.isValidKind(kind)) {
      throw new InvalidJobException(
          "cannot enqueue job: kind must be 1-128 characters of letters, digits and _ . : - /, got "
              + (kind == null ? "null" : "\"" + kind + "\""));
    }
    if (args == null || !args.isObject()) {
      throw new InvalidJobException(
          "cannot enqueue job (kind="
              + kind
              + "): args must be a JSON object, got "
              + (args == null ? "null" : args.getNodeType().name().toLowerCase(Locale.ROOT)));
    }
    EnqueueStore.NewJob job =
        EnqueueStore.NewJob.prepare(
            kind, args.toString(), options, mapper, maxArgsBytes, maxMetadataBytes);
    JobRow row =
        Db.inTransaction(
            dataSource,
            "cannot enqueue job (kind=" + kind + ")",
            c -> enqueueStore.enqueue(c, job));
    return new EnqueueResult(row.toJob(mapper), row.existing(), row.updated());
  }

  /**
   * Makes a job that is not running available now: a {@code discarded}, {@code cancelled} or {@code
   * completed} job runs again, a {@code scheduled} or {@code retryable} one runs without waiting.
   * Its attempt count is kept (one more attempt is granted when none is left), a pending cancel
   * request is dropped, and the metadata records {@code retried_at}, {@code retried_by}, {@code
   * retried_from} (the state before) and {@code retry_count}. The queue's workers are woken. A
   * running job is left alone ({@link RetryOutcome#RUNNING}), even when a worker claims it while
   * this call waits for its row lock.
   *
   * @param id the job id
   * @param retriedBy who retried it, recorded in the metadata; may be null
   */
  public RetryResult retry(long id, String retriedBy) {
    return Db.inTransaction(
        dataSource,
        "cannot retry job (id=" + id + ")",
        c -> {
          // A job that changes state between the guarded UPDATE and the read of why it did not
          // match is tried again; a few rounds settle it (running and available both stop it).
          for (int round = 0; round < 5; round++) {
            JobRow retried = store.retry(c, id, retriedBy);
            if (retried != null) {
              Job job = retried.toJob(mapper);
              JobState before = JobState.fromDb(job.metadata().path("retried_from").asText());
              return new RetryResult(RetryOutcome.RETRIED, job, before);
            }
            Job current = read(c, id);
            if (current == null) {
              return new RetryResult(RetryOutcome.NOT_FOUND, null, null);
            }
            if (current.state() == JobState.RUNNING) {
              return new RetryResult(RetryOutcome.RUNNING, current, current.state());
            }
            if (current.state() == JobState.AVAILABLE) {
              return new RetryResult(RetryOutcome.ALREADY_AVAILABLE, current, current.state());
            }
            if (current.state() == JobState.PENDING) {
              return new RetryResult(RetryOutcome.PENDING, current, current.state());
            }
          }
          throw new BatonException(
              "cannot retry job (id=" + id + "): its state keeps changing; try again");
        });
  }

  /**
   * Makes a job that waits for its run-at time ({@code scheduled}) or its retry ({@code retryable})
   * available now, as {@link #retry} makes it, recording the same metadata ({@code retried_at},
   * {@code retried_by}, {@code retried_from}, {@code retry_count}); the queue's workers are woken.
   * A job in any other state is left as it is: {@link RunNowOutcome#ALREADY_AVAILABLE} for an
   * available one, {@link RunNowOutcome#NOT_WAITING} for a running or final one (which {@link
   * #retry} would run again). The job's row is locked while its state is checked, so a claim, a
   * cancel or the scheduler cannot change it between the check and the change.
   *
   * @param id the job id
   * @param by who ran it, recorded in the metadata as {@code retried_by}; may be null
   */
  public RunNowResult runNow(long id, String by) {
    return Db.inTransaction(
        dataSource,
        "cannot run job now (id=" + id + ")",
        c -> {
          String locked = store.lockState(c, id);
          if (locked == null) {
            return new RunNowResult(RunNowOutcome.NOT_FOUND, null, null);
          }
          JobState before = JobState.fromDb(locked);
          if (before == JobState.SCHEDULED || before == JobState.RETRYABLE) {
            JobRow made = store.retry(c, id, by);
            if (made != null) {
              return new RunNowResult(RunNowOutcome.MADE_AVAILABLE, made.toJob(mapper), before);
            }
          }
          Job current = read(c, id);
          return new RunNowResult(
              before == JobState.AVAILABLE
                  ? RunNowOutcome.ALREADY_AVAILABLE
                  : RunNowOutcome.NOT_WAITING,
              current,
              before);
        });
  }

  /**
   * Cancels a job, with {@code internal.db.AdminStore}'s statement that {@link
   * dev.baton.Baton#cancel} runs: a job waiting to run is cancelled at once; a running job is
   * flagged and its holder told (NOTIFY, and its next heartbeat) to interrupt the handler, and it
   * becomes {@code cancelled} when the handler gives up (a handler that completes anyway
   * completes). Returns the state after the call: {@code CANCELLED}, or {@code RUNNING} for a
   * running job; empty when the job does not exist or is already final.
   */
  public Optional<JobState> cancel(long id) {
    return cancel(id, null);
  }

  /**
   * Cancels a job as {@link #cancel(long)} does, recording {@code by} as {@code
   * cancel_requested_by} in its metadata beside {@code cancel_requested_at}.
   *
   * @param by who cancelled it; may be null (nothing recorded)
   */
  public Optional<JobState> cancel(long id, String by) {
    return Optional.ofNullable(store.cancel(dataSource, id, by)).map(JobState::fromDb);
  }

  /**
   * Deletes a job that is not running, with its history (errors, metadata); its idempotency key is
   * free again afterwards. A running job is left alone ({@link DeleteOutcome#RUNNING}), even when a
   * worker claims it while this call waits for its row lock.
   */
  public DeleteResult delete(long id) {
    return Db.inTransaction(
        dataSource,
        "cannot delete job (id=" + id + ")",
        c -> {
          for (int round = 0; round < 5; round++) {
            JobRow deleted = store.delete(c, id);
            if (deleted != null) {
              return new DeleteResult(DeleteOutcome.DELETED, deleted.toJob(mapper));
            }
            Job current = read(c, id);
            if (current == null) {
              return new DeleteResult(DeleteOutcome.NOT_FOUND, null);
            }
            if (current.state() == JobState.RUNNING) {
              return new DeleteResult(DeleteOutcome.RUNNING, current);
            }
          }
          throw new BatonException(
              "cannot delete job (id=" + id + "): its state keeps changing; try again");
        });
  }

  /** Most ids one statement of {@link #retryAll} and its kin takes: 1,000. */
  public static final int BULK_BATCH = AdminStore.MAX_BATCH;

  /**
   * Retries the jobs of {@code ids} as {@link #retry} does, in batched statements of up to {@value
   * #BULK_BATCH} ids, each its own transaction: a job that is running, available, or gone is left
   * as it is, and so is a finished unique job whose key another job holds (a batch that holds one
   * is done again a job at a time). Returns how many were retried. Doing it twice retries nothing
   * the second time that the first retried (they are available then).
   *
   * @param by who retried them, recorded in their metadata; may be null
   */
  public long retryAll(List<Long> ids, String by) {
    return retryMany(ids, RETRY_STATES, by, "cannot retry jobs");
  }

  /**
   * Makes the {@code scheduled} and {@code retryable} jobs of {@code ids} available now as {@link
   * #runNow} does, in batched statements as {@link #retryAll}; any other job is left as it is.
   * Returns how many were made available.
   */
  public long runNowAll(List<Long> ids, String by) {
    return retryMany(ids, RUN_NOW_STATES, by, "cannot run jobs now");
  }

  /**
   * Cancels the jobs of {@code ids} as {@link #cancel(long, String)} does, in batched statements as
   * {@link #retryAll}: waiting ones at once, running ones by telling their holders (a running job
   * asked before is not asked again). Returns how many changed.
   */
  public long cancelAll(List<Long> ids, String by) {
    return batched(ids, "cannot cancel jobs", (c, batch) -> store.cancelMany(c, batch, by));
  }

  /**
   * Deletes the jobs of {@code ids} that are not running, in batched statements as {@link
   * #retryAll}. Returns how many were deleted.
   */
  public long deleteAll(List<Long> ids) {
    return batched(ids, "cannot delete jobs", store::deleteMany);
  }

  private static final String[] RETRY_STATES = {
    "scheduled", "retryable", "completed", "cancelled", "discarded"
  };
  private static final String[] RUN_NOW_STATES = {"scheduled", "retryable"};

  private long retryMany(List<Long> ids, String[] states, String by, String what) {
    Objects.requireNonNull(ids, "ids");
    long changed = 0;
    for (int from = 0; from < ids.size(); from += BULK_BATCH) {
      List<Long> part = ids.subList(from, Math.min(ids.size(), from + BULK_BATCH));
      try {
        changed += batched(part, what, (c, batch) -> store.retryMany(c, batch, states, by));
      } catch (BatonException e) {
        if (!AdminStore.meetsAHeldUniqueKey(e)) {
          throw e;
        }
        // A finished unique job of the batch would take a key that another job holds (or that an
        // earlier job of the batch takes): the batch again, a job at a time, leaving those as
        // they are, as a job in a state the action does not take is left.
        for (long id : part) {
          try {
            changed += batched(List.of(id), what, (c, one) -> store.retryMany(c, one, states, by));
          } catch (BatonException one) {
            if (!AdminStore.meetsAHeldUniqueKey(one)) {
              throw one;
            }
          }
        }
      }
    }
    return changed;
  }

  /** One statement of a bulk action on a batch of ids; returns how many rows it changed. */
  private interface Batch {
    long run(Connection c, long[] ids) throws SQLException;
  }

  private long batched(List<Long> ids, String what, Batch batch) {
    Objects.requireNonNull(ids, "ids");
    long changed = 0;
    for (int from = 0; from < ids.size(); from += BULK_BATCH) {
      List<Long> part = ids.subList(from, Math.min(ids.size(), from + BULK_BATCH));
      long[] a = part.stream().mapToLong(Long::longValue).toArray();
      changed +=
          Db.inTransaction(
              dataSource, what + " (" + a.length + " ids from " + a[0] + ")", c -> batch.run(c, a));
    }
    return changed;
  }

  /**
   * What makes a unique job unique, as far as the database keeps it (the key itself is a hash of
   * its kind, args and the rest: docs/unique-jobs.md).
   *
   * @param states the states in which the job holds its key: {@code scheduled}, {@code available},
   *     {@code running} and {@code retryable} always, plus those of the final states chosen
   * @param holder the id of the job that holds the key now: this job's own while it is in one of
   *     {@code states}, another's (which a retry of this one would meet), or null for none
   */
  public record Uniqueness(Set<JobState> states, Long holder) {
    /** Copies {@code states}. */
    public Uniqueness {
      states = Collections.unmodifiableSet(EnumSet.copyOf(states));
    }
  }

  /**
   * The uniqueness of job {@code id}: empty when the job does not exist or was enqueued without
   * uniqueness. One read by id, in its own transaction; the holder is read through the unique key's
   * index, as of that read.
   */
  public Optional<Uniqueness> uniqueness(long id) {
    return Optional.ofNullable(
        Db.inTransaction(
            dataSource,
            "cannot read the uniqueness of job (id=" + id + ")",
            c -> {
              AdminStore.Uniqueness u = store.uniqueness(c, id);
              if (u == null) {
                return null;
              }
              Set<JobState> states = EnumSet.noneOf(JobState.class);
              u.states().forEach(st -> states.add(JobState.fromDb(st)));
              return new Uniqueness(states, u.holder());
            }));
  }

  private Job read(Connection c, long id) throws SQLException {
    JobRow row = store.get(c, id);
    return row == null ? null : row.toJob(mapper);
  }
}
