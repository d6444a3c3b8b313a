package dev.baton.internal.db;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.BatonException;
import dev.baton.EnqueueOptions;
import dev.baton.InvalidJobException;
import dev.baton.JobState;
import dev.baton.UniqueOptions;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

/**
 * The statements that insert jobs: one job (alone, in the caller's transaction, or claimed by the
 * enqueuing node in its insert), and many jobs (one statement of arrays, or {@code COPY} for large
 * batches). Statements that read a job row select the columns {@link JobRow#read} takes, in its
 * order.
 *
 * <p>Not public API.
 */
public final class EnqueueStore {

  // A conflicting idempotency key inserts nothing and returns no row; else the inserted row, as
  // JobRow#read takes it, and whether its queue was notified: the notify is an expression of
  // RETURNING, evaluated for the inserted row only when it is available, so that the insert stays
  // a plain INSERT, which the server runs faster than an insert in a CTE with the notify in a
  // second one. Binds: channel.
  @Fragment
  private static final String INSERTED =
      "ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING\nRETURNING "
          + JobRow.COLUMNS
          + ",\n  CASE WHEN state = 'available' THEN pg_notify(?, queue) IS NULL END AS notified";

  // One statement inserts the job and, when it is available now, notifies its queue. NOTIFY is
  // transactional: listeners hear it at commit, never for a rolled-back job, and Postgres folds
  // repeats of one (channel, payload) in a transaction into one. A conflicting idempotency key
  // inserts nothing, so nothing is notified; the caller then reads the existing job. Times are
  // read as epoch microseconds: pgjdbc builds a calendar for each result set that reads a
  // timestamptz, a large share of the client's CPU in a single enqueue. Binds: queue, kind, args,
  // run time, priority, max attempts, run time again, key, metadata, channel.
  private static final String ENQUEUE =
      """
      INSERT INTO ${schema}.job
        (queue, kind, args, state, priority, max_attempts, scheduled_at, idempotency_key, metadata)
      VALUES (?, ?, ?::jsonb, CASE WHEN ?::timestamptz > now() THEN 'scheduled' ELSE 'available' END,
              ?, ?, coalesce(?::timestamptz, now()), ?, ?::jsonb)
      """
          + INSERTED;

  // Claim on enqueue: the same insert, but when nothing of the queue waits ahead of the job (an
  // available job of the same or a higher priority, which a claim would take first) and the queue
  // is neither paused nor limited (as HolderStore's claim tests it; a limited queue's jobs are
  // claimed only by HolderStore's limited claim), the row is written already claimed by the
  // enqueuing node, under a new fence, with lease and deadline as HolderStore's claim sets them.
  // Otherwise it is a plain available insert with its NOTIFY. A job another claimer has locked but
  // not yet committed still reads as available here, so it too keeps its place. Binds: queue,
  // priority, queue, queue, kind, args, priority, max attempts, key, metadata, node id, lease ms,
  // deadline ms, channel.
  private static final String ENQUEUE_CLAIMING =
      """
      WITH go AS (
        SELECT NOT EXISTS (SELECT 1 FROM ${schema}.job
                           WHERE state = 'available' AND queue = ? AND priority <= ?)
           AND
      """
          + HolderStore.QUEUE_OPEN_UNLIMITED
          + """

           AS here
      )
      INSERT INTO ${schema}.job
        (queue, kind, args, state, priority, max_attempts, idempotency_key, metadata, attempt,
         attempted_at, attempted_by, lease_expires_at, deadline_at, fence)
      SELECT ?, ?, ?::jsonb, CASE WHEN go.here THEN 'running' ELSE 'available' END, ?, ?, ?,
             ?::jsonb, CASE WHEN go.here THEN 1 ELSE 0 END,
             CASE WHEN go.here THEN now() END,
             CASE WHEN go.here THEN ? END,
             CASE WHEN go.here THEN now() + ? * interval '1 millisecond' END,
             CASE WHEN go.here THEN now() + ? * interval '1 millisecond' END,
             CASE WHEN go.here THEN nextval('${schema}.job_fence_seq') ELSE 0 END
      FROM go
      """
          + INSERTED;

  // The job holding a key that an enqueue conflicted with. Binds: key.
  private static final String GET_BY_KEY =
      "SELECT " + JobRow.COLUMNS + "\nFROM ${schema}.job WHERE idempotency_key = ?";

  // Bulk insert from arrays in one statement. Ids are drawn from the identity sequence (named
  // once, not looked up per row) in request order inside a materialized CTE, so the returned ids
  // map back to requests without relying on RETURNING order; a request whose key repeats an
  // earlier one in the same call conflicts with it and maps to it. Binds: queues, kinds, args,
  // priorities, max attempts, run times, keys, metadata, channel.
  private static final String ENQUEUE_MANY =
      """
      WITH p AS MATERIALIZED (
        SELECT nextval('${schema}.job_id_seq'::regclass) AS id, r.*
        FROM unnest(?::text[], ?::text[], ?::text[], ?::int[], ?::int[], ?::timestamptz[],
                    ?::text[], ?::text[]) WITH ORDINALITY
             AS r(queue, kind, args, priority, max_attempts, run_at, idempotency_key, metadata, ord)
        ORDER BY r.ord
      ),
      ins AS (
        INSERT INTO ${schema}.job
          (id, queue, kind, args, state, priority, max_attempts, scheduled_at, idempotency_key,
           metadata)
        OVERRIDING SYSTEM VALUE
        SELECT id, queue, kind, args::jsonb,
               CASE WHEN run_at IS NULL OR run_at <= now() THEN 'available' ELSE 'scheduled' END,
               priority, max_attempts, coalesce(run_at, now()), idempotency_key, metadata::jsonb
        FROM p
        ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
        RETURNING id, queue, state
      ),
      n AS (SELECT pg_notify(?, q.queue) FROM (SELECT DISTINCT queue FROM ins WHERE state = 'available') q)
      SELECT p.ord, ins.id, (SELECT count(*) FROM n) AS notified
      FROM ins JOIN p ON p.id = ins.id
      """;

  // A unique job goes through the schema's SQL function enqueue (migration 7), which computes its
  // key, inserts it or finds (and, for replace or debounce, changes) the job holding the key, and
  // notifies its queue: the same code as an enqueue from SQL, so the two cannot disagree. A job
  // without uniqueness never runs this. Binds: kind, args, queue, run time, priority, max attempts,
  // key, metadata, unique_by, fields, per queue, period, states, replace, debounce, max wait.
  private static final String ENQUEUE_UNIQUE =
      "SELECT "
          + JobRow.columnsOf("(e.job).")
          + """
          , e.existing, e.updated
          FROM ${schema}.enqueue(kind => ?, args => ?::jsonb, queue => ?, run_at => ?::timestamptz,
                                 priority => ?, max_attempts => ?, idempotency_key => ?,
                                 metadata => ?::jsonb, unique_by => ?, unique_fields => ?::text[],
                                 unique_per_queue => ?, unique_period => ?::interval,
                                 unique_states => ?::text[], replace => ?::text[],
                                 debounce => ?::interval, debounce_max_wait => ?::interval) e
          """;

  // The requests of a bulk enqueue holding unique jobs, as r: one array per argument of the SQL
  // function, in ENQUEUE_UNIQUE's order (fields, states and replace as array text).
  @Fragment
  private static final String REQUESTS =
      """
      unnest(?::text[], ?::text[], ?::text[], ?::timestamptz[], ?::int[], ?::int[], ?::text[],
             ?::text[], ?::text[], ?::text[], ?::boolean[], ?::interval[], ?::text[], ?::text[],
             ?::interval[], ?::interval[]) WITH ORDINALITY
        AS r(kind, args, queue, run_at, priority, max_attempts, idempotency_key, metadata,
             unique_by, unique_fields, per_queue, period, states, replace, debounce, max_wait, ord)
      """;

  // A bulk that replaces or debounces waiting jobs: the SQL function once per request, in request
  // order, so a request repeating an earlier one's key in the same call finds (and changes) that
  // job. Binds: REQUESTS.
  private static final String ENQUEUE_MANY_EACH =
      "SELECT r.ord, e.id, e.existing\nFROM "
          + REQUESTS
          + """
          CROSS JOIN LATERAL ${schema}.enqueue(
              kind => r.kind, args => r.args::jsonb, queue => r.queue, run_at => r.run_at,
              priority => r.priority, max_attempts => r.max_attempts,
              idempotency_key => r.idempotency_key, metadata => r.metadata::jsonb,
              unique_by => r.unique_by, unique_fields => r.unique_fields::text[],
              unique_per_queue => coalesce(r.per_queue, false), unique_period => r.period,
              unique_states => r.states::text[], replace => r.replace::text[],
              debounce => r.debounce, debounce_max_wait => r.max_wait) e
          ORDER BY r.ord
          """;

  // A bulk of unique jobs that keep the first (no replace, no debounce), set-based: the requests
  // r (already checked by the client) get ids in request order and their unique key from the SQL
  // function job_unique_key, the one the function enqueue uses; one INSERT ... ON CONFLICT DO
  // NOTHING (any key: idempotency or unique) inserts them in that order, so a request repeating
  // an earlier one's key conflicts with it. Returns every request: its id when inserted, else its
  // keys (unique key as hex) for the lookup of the job holding them. Binds: r's, channel.
  @Fragment
  private static final String UNIQUE_INSERTED =
      """
      p AS MATERIALIZED (
        SELECT nextval('${schema}.job_id_seq'::regclass) AS id, r.*,
               CASE WHEN r.unique_by IS NOT NULL THEN
                 ${schema}.job_unique_key(r.kind, r.args::jsonb, r.unique_by, r.unique_fields::text[],
                                          CASE WHEN r.per_queue THEN r.queue END,
                                          coalesce(r.run_at, now()), r.period)
               END AS ukey
        FROM r ORDER BY r.ord
      ),
      ins AS (
        INSERT INTO ${schema}.job
          (id, queue, kind, args, state, priority, max_attempts, scheduled_at, idempotency_key,
           metadata, unique_key, unique_states)
        OVERRIDING SYSTEM VALUE
        SELECT id, queue, kind, args::jsonb,
               CASE WHEN run_at IS NULL OR run_at <= now() THEN 'available' ELSE 'scheduled' END,
               priority, max_attempts, coalesce(run_at, now()), idempotency_key, metadata::jsonb,
               ukey,
               CASE WHEN ukey IS NOT NULL THEN coalesce(states::text[],
                 ARRAY['scheduled', 'available', 'running', 'retryable']) END
        FROM p
        ON CONFLICT DO NOTHING
        RETURNING id, queue, state
      ),
      n AS (SELECT pg_notify(?, q.queue) FROM (SELECT DISTINCT queue FROM ins WHERE state = 'available') q)
      SELECT p.ord, ins.id, encode(p.ukey, 'hex'), p.idempotency_key, (SELECT count(*) FROM n)
      FROM p LEFT JOIN ins ON ins.id = p.id
      """;

  // Binds: REQUESTS, then UNIQUE_INSERTED's.
  private static final String ENQUEUE_MANY_UNIQUE =
      "WITH r AS (SELECT * FROM " + REQUESTS + "),\n" + UNIQUE_INSERTED;

  // The COPY path of a bulk of unique jobs that keep the first (see enqueueMany): COPY cannot
  // settle a conflicting key itself, so the requests are streamed into job_staged under this
  // session's batch number, and one statement of the same transaction takes them out and inserts
  // them as ENQUEUE_MANY_UNIQUE does.
  private static final String COPY_STAGED =
      """
      COPY ${schema}.job_staged (batch, ord, kind, args, queue, priority, max_attempts, metadata,
                                unique_by, unique_fields, per_queue, period, states, replace,
                                debounce, max_wait) FROM STDIN""";

  // Binds: batch, then UNIQUE_INSERTED's.
  private static final String ENQUEUE_STAGED =
      "WITH r AS (DELETE FROM ${schema}.job_staged WHERE batch = ? RETURNING *),\n"
          + UNIQUE_INSERTED;

  // The jobs holding the unique keys (hex) that a bulk insert conflicted with. Binds: keys.
  private static final String GET_IDS_BY_UNIQUE_KEYS =
      """
      SELECT encode(unique_key, 'hex'), id FROM ${schema}.job
      WHERE unique_key = ANY (ARRAY(SELECT decode(k, 'hex') FROM unnest(?::text[]) AS k))
        AND state = ANY (unique_states)
      """;

  // The jobs holding the keys that a bulk insert conflicted with. Binds: keys.
  private static final String GET_IDS_BY_KEYS =
      "SELECT idempotency_key, id FROM ${schema}.job WHERE idempotency_key = ANY(?::text[])";

  // The COPY path of a bulk enqueue (see enqueueMany): ids drawn first, in request order, then the
  // rows streamed in COPY's text format with those ids (COPY writes a GENERATED ALWAYS identity
  // column as given), then one NOTIFY per queue. No ON CONFLICT and no run times, so state,
  // scheduled_at and created_at are the table's defaults: available, now(), now(). The draw returns
  // one row: the first and last id and, only when other sessions drew ids in between (the range has
  // gaps), every id in order, because sending every id as a row costs the client more than the
  // draw. Binds: how many.
  private static final String DRAW_IDS =
      """
      SELECT min(id), max(id),
             CASE WHEN max(id) - min(id) + 1 = count(*) THEN NULL ELSE array_agg(id ORDER BY id) END
      FROM (SELECT nextval('${schema}.job_id_seq'::regclass) AS id FROM generate_series(1, ?)) d
      """;

  private static final String COPY_JOBS =
      "COPY ${schema}.job (id, queue, kind, args, priority, max_attempts, metadata) FROM STDIN";

  // Binds: channel, queues.
  private static final String NOTIFY_QUEUES =
      "SELECT count(pg_notify(?, q)) FROM unnest(?::text[]) AS q";

  /**
   * Bulk enqueues of at least this many jobs, none holding an idempotency key or a run time, are
   * written with {@code COPY}: three statements and a stream, against one statement whose eight
   * arrays the server must parse and whose rows go through {@code ON CONFLICT} and a join back to
   * the requests. The statement wins for small calls (fewer round trips), COPY for large ones.
   * Smaller calls, and ones that need the conflict check or a run time, use the statement.
   */
  public static final int COPY_MIN_JOBS = 256;

  private final SchemaName schema;
  private final CappedQueues capped;
  private final BacklogCapStore caps;
  private final String enqueue;
  private final String enqueueClaiming;
  private final String enqueueUnique;
  private final String enqueueManyEach;
  private final String enqueueManyUnique;
  private final String copyStaged;
  private final String enqueueStaged;
  private final String getIdsByUniqueKeys;
  private final String getByKey;
  private final String enqueueMany;
  private final String getIdsByKeys;
  private final String drawIds;
  private final String copyJobs;

  /** Prepares the SQL text for {@code schema}; no queue's backlog cap is checked. */
  public EnqueueStore(SchemaName schema) {
    this(schema, CappedQueues.NONE);
  }

  /**
   * Prepares the SQL text for {@code schema}; enqueues to a queue that {@code capped} names are
   * admitted through its backlog cap first, in the same transaction. Enqueues to any other queue
   * run exactly the statements they run without caps.
   */
  public EnqueueStore(SchemaName schema, CappedQueues capped) {
    this.schema = schema;
    this.capped = capped;
    this.caps = new BacklogCapStore(schema);
    this.enqueue = schema.expand(ENQUEUE);
    this.enqueueClaiming = schema.expand(ENQUEUE_CLAIMING);
    this.enqueueUnique = schema.expand(ENQUEUE_UNIQUE);
    this.enqueueManyEach = schema.expand(ENQUEUE_MANY_EACH);
    this.enqueueManyUnique = schema.expand(ENQUEUE_MANY_UNIQUE);
    this.copyStaged = schema.expand(COPY_STAGED);
    this.enqueueStaged = schema.expand(ENQUEUE_STAGED);
    this.getIdsByUniqueKeys = schema.expand(GET_IDS_BY_UNIQUE_KEYS);
    this.getByKey = schema.expand(GET_BY_KEY);
    this.enqueueMany = schema.expand(ENQUEUE_MANY);
    this.getIdsByKeys = schema.expand(GET_IDS_BY_KEYS);
    this.drawIds = schema.expand(DRAW_IDS);
    this.copyJobs = schema.expand(COPY_JOBS);
  }

  /** A new job to insert. Args and metadata are JSON text; {@code unique} null for none. */
  public record NewJob(
      String queue,
      String kind,
      String args,
      int priority,
      int maxAttempts,
      Instant runAt,
      String idempotencyKey,
      String metadata,
      UniqueOptions unique) {

    /** A new job that is not unique. */
    public NewJob(
        String queue,
        String kind,
        String args,
        int priority,
        int maxAttempts,
        Instant runAt,
        String idempotencyKey,
        String metadata) {
      this(queue, kind, args, priority, maxAttempts, runAt, idempotencyKey, metadata, null);
    }

    /**
     * The job to insert for {@code kind} with {@code argsJson} (already JSON) and {@code options}:
     * the one preparation of every enqueue, the client's and the admin's. Checks the size of the
     * args against {@code maxArgsBytes} (the client's {@code BatonConfig.maxArgsBytes}), serialises
     * the metadata with {@code mapper}, and checks the job's values ({@link NewJobCheck}).
     *
     * @throws InvalidJobException if the args are over the limit, the metadata cannot be
     *     serialised, or a value is not one PostgreSQL stores as given ({@link NewJobCheck})
     */
    public static NewJob prepare(
        String kind,
        String argsJson,
        EnqueueOptions options,
        ObjectMapper mapper,
        int maxArgsBytes,
        int maxMetadataBytes) {
      String metadata = NewJobCheck.metadataJson(mapper, kind, options.metadata());
      NewJobCheck.size(kind, "args are", argsJson, maxArgsBytes, "maxArgsBytes");
      NewJob job =
          new NewJob(
              options.queue(),
              kind,
              argsJson,
              options.priority(),
              options.maxAttempts(),
              options.runAt(),
              options.idempotencyKey(),
              metadata,
              options.unique());
      NewJobCheck.check(
          job.queue(),
          job.kind(),
          job.args(),
          job.idempotencyKey(),
          job.metadata(),
          maxMetadataBytes);
      return job;
    }
  }

  /**
   * Inserts {@code job} on {@code c}, or returns the job already holding its idempotency key. Runs
   * in whatever transaction {@code c} is in (an autocommit {@code c} of a capped queue gets one
   * transaction for the admission and the insert).
   *
   * @throws dev.baton.BacklogCapExceededException if the job's queue has a cap it would exceed;
   *     nothing is written and {@code c}'s transaction stays usable
   */
  public JobRow enqueue(Connection c, NewJob job) throws SQLException {
    if (capped.mayBeCapped(c, job.queue())) {
      return Db.inOneTransaction(
          c,
          tx -> {
            caps.admit(tx, job.queue(), 1);
            return insertOne(tx, job);
          });
    }
    return insertOne(c, job);
  }

  private JobRow insertOne(Connection c, NewJob job) throws SQLException {
    return job.unique() != null ? enqueueUnique(c, job) : insert(c, job);
  }

  private JobRow insert(Connection c, NewJob job) throws SQLException {
    for (int tries = 0; tries < 5; tries++) {
      try (PreparedStatement ps = c.prepareStatement(enqueue)) {
        int i = 1;
        ps.setString(i++, job.queue());
        ps.setString(i++, job.kind());
        ps.setString(i++, job.args());
        ps.setString(i++, Timestamps.text(job.runAt()));
        ps.setInt(i++, job.priority());
        ps.setInt(i++, job.maxAttempts());
        ps.setString(i++, Timestamps.text(job.runAt()));
        ps.setString(i++, job.idempotencyKey());
        ps.setString(i++, job.metadata());
        ps.setString(i, schema.insertChannel());
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            return JobRow.read(rs, false);
          }
        }
      }
      if (job.idempotencyKey() == null) {
        throw new BatonException("enqueue returned no row for a job without idempotency key");
      }
      try (PreparedStatement ps = c.prepareStatement(getByKey)) {
        ps.setString(1, job.idempotencyKey());
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            return JobRow.read(rs, true);
          }
        }
      }
      // The job holding the key was deleted between the two statements: insert again.
    }
    throw new BatonException(
        "cannot enqueue job (idempotency_key="
            + job.idempotencyKey()
            + "): the key conflicted but its job could not be read; is the transaction"
            + " REPEATABLE READ or SERIALIZABLE? Retry it");
  }

  private JobRow enqueueUnique(Connection c, NewJob job) throws SQLException {
    UniqueOptions u = job.unique();
    try (PreparedStatement ps = c.prepareStatement(enqueueUnique)) {
      int i = 1;
      ps.setString(i++, job.kind());
      ps.setString(i++, job.args());
      ps.setString(i++, job.queue());
      ps.setString(i++, Timestamps.text(job.runAt()));
      ps.setInt(i++, job.priority());
      ps.setInt(i++, job.maxAttempts());
      ps.setString(i++, job.idempotencyKey());
      ps.setString(i++, job.metadata());
      ps.setString(i++, byOf(u));
      ps.setArray(i++, u.fields().isEmpty() ? null : c.createArrayOf("text", u.fields().toArray()));
      ps.setBoolean(i++, u.perQueue());
      ps.setString(i++, interval(u.period()));
      ps.setString(i++, statesOf(u));
      ps.setString(i++, replaceOf(u));
      ps.setString(i++, interval(u.debounce()));
      ps.setString(i, interval(u.maxWait()));
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return JobRow.read(rs, rs.getBoolean(20), rs.getBoolean(21));
      }
    }
  }

  private static String byOf(UniqueOptions u) {
    return u.by().name().toLowerCase(Locale.ROOT);
  }

  /**
   * The fields of {@code u} as the text of a PostgreSQL array, or null for none: the form a value
   * takes inside a text[] of many jobs' arrays (one array per job, in a bulk enqueue) and in a COPY
   * row, where no array can be bound. Each field is quoted, its backslashes and quotes escaped.
   */
  private static String fieldsOf(UniqueOptions u) {
    if (u.fields().isEmpty()) {
      return null;
    }
    StringBuilder sb = new StringBuilder("{");
    for (String f : u.fields()) {
      if (sb.length() > 1) {
        sb.append(',');
      }
      sb.append('"');
      for (int k = 0; k < f.length(); k++) {
        char ch = f.charAt(k);
        if (ch == '\\' || ch == '"') {
          sb.append('\\');
        }
        sb.append(ch);
      }
      sb.append('"');
    }
    return sb.append('}').toString();
  }

  /** The states of {@code u} as an array literal, or null for the default ones. */
  private static String statesOf(UniqueOptions u) {
    if (u.states().equals(UniqueOptions.HOLDING_STATES)) {
      return null;
    }
    return u.states().stream().map(JobState::dbName).collect(Collectors.joining(",", "{", "}"));
  }

  private static String replaceOf(UniqueOptions u) {
    if (u.replace().isEmpty()) {
      return null;
    }
    return u.replace().stream()
        .map(UniqueOptions.Replace::dbName)
        .collect(Collectors.joining(",", "{", "}"));
  }

  /** {@code d} as an ISO 8601 duration, which PostgreSQL reads as an interval; null for null. */
  private static String interval(Duration d) {
    return d == null ? null : d.toString();
  }

  /**
   * An enqueue that may have claimed its job: {@code claimed} is the claim when the row was written
   * running for the enqueuing node, else null ({@code row} is then available, or the existing job
   * holding the key).
   */
  public record EnqueuedClaim(JobRow row, ClaimedJob claimed) {}

  /**
   * Inserts {@code job} (due now) claimed by {@code p.nodeId()} when no job of its queue waits
   * ahead of it and the queue is not paused, else available; or returns the job already holding its
   * idempotency key. Runs in whatever transaction {@code c} is in: the caller commits before the
   * claim is acted on.
   */
  public EnqueuedClaim enqueueClaiming(Connection c, NewJob job, HolderStore.ClaimParams p)
      throws SQLException {
    if (job.runAt() != null) {
      throw new IllegalArgumentException("a job with a run time is not claimed in its insert");
    }
    if (capped.mayBeCapped(c, job.queue())) {
      return Db.inOneTransaction(
          c,
          tx -> {
            caps.admit(tx, job.queue(), 1);
            return insertClaiming(tx, job, p);
          });
    }
    return insertClaiming(c, job, p);
  }

  private EnqueuedClaim insertClaiming(Connection c, NewJob job, HolderStore.ClaimParams p)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(enqueueClaiming)) {
      int i = 1;
      ps.setString(i++, job.queue());
      ps.setInt(i++, job.priority());
      ps.setString(i++, job.queue());
      ps.setString(i++, job.queue());
      ps.setString(i++, job.kind());
      ps.setString(i++, job.args());
      ps.setInt(i++, job.priority());
      ps.setInt(i++, job.maxAttempts());
      ps.setString(i++, job.idempotencyKey());
      ps.setString(i++, job.metadata());
      ps.setString(i++, p.nodeId());
      ps.setLong(i++, p.lease().toMillis());
      ps.setLong(i++, p.timeoutMillisOf(job.kind()) + p.lease().toMillis());
      ps.setString(i, schema.insertChannel());
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          JobRow row = JobRow.read(rs, false);
          if (!"running".equals(row.state())) {
            return new EnqueuedClaim(row, null);
          }
          ClaimedJob claimed =
              new ClaimedJob(
                  row.id(),
                  row.queue(),
                  row.kind(),
                  row.args(),
                  row.attempt(),
                  row.maxAttempts(),
                  row.fence(),
                  row.idempotencyKey(),
                  row.metadata(),
                  row.deadlineAt(),
                  false,
                  0L,
                  false);
          return new EnqueuedClaim(row, claimed);
        }
      }
    }
    // The key is held by another job: read it as a plain enqueue does.
    return new EnqueuedClaim(insert(c, job), null);
  }

  /** Ids per request, in order, and whether each matched an existing job by key. */
  public record BulkResult(long[] ids, boolean[] existing) {}

  /**
   * Inserts many jobs on {@code c}, in whatever transaction {@code c} is in (an autocommit {@code
   * c} gets one transaction for the call). Returns, per job in order, its id and whether its
   * idempotency key matched an existing job. Ids ascend in request order.
   *
   * <p>All or nothing: every capped queue of the call is admitted first (in queue name order, so
   * that two bulk calls never wait for each other's locks in opposite orders), counting every job
   * of the call for its queue, those whose idempotency key already exists included.
   *
   * @throws dev.baton.BacklogCapExceededException if the jobs of one queue would take it over its
   *     cap; none of the call's jobs is written and {@code c}'s transaction stays usable
   */
  public BulkResult enqueueMany(Connection c, List<NewJob> jobs) throws SQLException {
    Map<String, Integer> perCappedQueue = perCappedQueue(c, jobs);
    if (perCappedQueue.isEmpty()) {
      return insertMany(c, jobs);
    }
    return Db.inOneTransaction(
        c,
        tx -> {
          admit(tx, perCappedQueue);
          return insertMany(tx, jobs);
        });
  }

  /**
   * Admits {@code jobs} through the backlog caps of their queues on {@code c}, which must be in the
   * transaction that then inserts them (a workflow's or a batch's), as {@link #enqueueMany} does;
   * runs no statement when none of their queues may have a cap.
   *
   * @throws dev.baton.BacklogCapExceededException if the jobs of one queue would take it over its
   *     cap
   */
  public void admitAll(Connection c, List<NewJob> jobs) throws SQLException {
    admit(c, perCappedQueue(c, jobs));
  }

  // In queue name order, so that two calls never wait for each other's locks in opposite orders.
  private Map<String, Integer> perCappedQueue(Connection c, List<NewJob> jobs) throws SQLException {
    Map<String, Integer> perQueue = new HashMap<>();
    for (NewJob j : jobs) {
      perQueue.merge(j.queue(), 1, Integer::sum);
    }
    Map<String, Integer> perCappedQueue = new TreeMap<>();
    for (Map.Entry<String, Integer> e : perQueue.entrySet()) {
      if (capped.mayBeCapped(c, e.getKey())) {
        perCappedQueue.put(e.getKey(), e.getValue());
      }
    }
    return perCappedQueue;
  }

  private void admit(Connection tx, Map<String, Integer> perCappedQueue) throws SQLException {
    for (Map.Entry<String, Integer> e : perCappedQueue.entrySet()) {
      caps.admit(tx, e.getKey(), e.getValue());
    }
  }

  private BulkResult insertMany(Connection c, List<NewJob> jobs) throws SQLException {
    boolean copy =
        jobs.size() >= COPY_MIN_JOBS
            && jobs.stream().allMatch(j -> j.idempotencyKey() == null && j.runAt() == null)
            && c.isWrapperFor(PGConnection.class);
    if (jobs.stream().anyMatch(j -> j.unique() != null && j.unique().changesWaitingJob())) {
      return Db.inOneTransaction(c, tx -> enqueueManyEach(tx, jobs));
    }
    if (jobs.stream().anyMatch(j -> j.unique() != null)) {
      return Db.inOneTransaction(
          c, tx -> copy ? enqueueUniqueByCopy(tx, jobs) : enqueueManyUnique(tx, jobs));
    }
    if (copy) {
      return Db.inOneTransaction(c, tx -> enqueueByCopy(tx, jobs));
    }
    return enqueueByStatement(c, jobs);
  }

  private BulkResult enqueueByCopy(Connection c, List<NewJob> jobs) throws SQLException {
    int n = jobs.size();
    long[] ids = drawIds(c, n);
    CopyIn copy = c.unwrap(PGConnection.class).getCopyAPI().copyIn(copyJobs);
    try {
      CopyText rows = new CopyText(copy);
      for (int i = 0; i < n; i++) {
        NewJob j = jobs.get(i);
        rows.field(ids[i])
            .field(j.queue())
            .field(j.kind())
            .field(j.args())
            .field(j.priority())
            .field(j.maxAttempts())
            .field(j.metadata())
            .endRow();
      }
      rows.flush();
      long copied = copy.endCopy();
      if (copied != n) {
        throw new BatonException("bulk enqueue copied " + copied + " rows of " + n);
      }
    } catch (SQLException | RuntimeException e) {
      if (copy.isActive()) {
        try {
          copy.cancelCopy(); // the connection must leave COPY mode to be used again
        } catch (SQLException cancel) {
          e.addSuppressed(cancel);
        }
      }
      throw e;
    }
    String[] queues = jobs.stream().map(NewJob::queue).distinct().toArray(String[]::new);
    try (PreparedStatement ps = c.prepareStatement(NOTIFY_QUEUES)) {
      ps.setString(1, schema.insertChannel());
      ps.setArray(2, c.createArrayOf("text", queues));
      ps.executeQuery().close();
    }
    return new BulkResult(ids, new boolean[n]);
  }

  private BulkResult enqueueUniqueByCopy(Connection c, List<NewJob> jobs) throws SQLException {
    int n = jobs.size();
    // One call at a time per session, and its rows are gone when it returns (or rolled back with
    // its transaction when it fails): the session's backend pid is a batch number no one else uses.
    int batch = c.unwrap(PGConnection.class).getBackendPID();
    CopyIn copy = c.unwrap(PGConnection.class).getCopyAPI().copyIn(copyStaged);
    try {
      CopyText rows = new CopyText(copy);
      for (int i = 0; i < n; i++) {
        NewJob j = jobs.get(i);
        UniqueOptions u = j.unique();
        rows.field(batch)
            .field(i + 1)
            .field(j.kind())
            .field(j.args())
            .field(j.queue())
            .field(j.priority())
            .field(j.maxAttempts())
            .field(j.metadata())
            .fieldOrNull(u == null ? null : byOf(u))
            .fieldOrNull(u == null ? null : fieldsOf(u))
            .fieldOrNull(u == null ? null : Boolean.toString(u.perQueue()))
            .fieldOrNull(u == null ? null : interval(u.period()))
            .fieldOrNull(u == null ? null : statesOf(u))
            .fieldOrNull(u == null ? null : replaceOf(u))
            .fieldOrNull(u == null ? null : interval(u.debounce()))
            .fieldOrNull(u == null ? null : interval(u.maxWait()))
            .endRow();
      }
      rows.flush();
      copy.endCopy();
    } catch (SQLException | RuntimeException e) {
      if (copy.isActive()) {
        try {
          copy.cancelCopy(); // the connection must leave COPY mode to be used again
        } catch (SQLException cancel) {
          e.addSuppressed(cancel);
        }
      }
      throw e;
    }
    try (PreparedStatement ps = c.prepareStatement(enqueueStaged)) {
      ps.setLong(1, batch);
      ps.setString(2, schema.insertChannel());
      return readInserted(c, ps, jobs);
    }
  }

  /**
   * The result of a set-based unique bulk ({@link #UNIQUE_INSERTED}): each request's new id, or the
   * id of the job holding its idempotency key or unique key. A request whose key's holder left its
   * states (finished, deleted) between the insert and the lookup is enqueued again by the SQL
   * function, which tries until it inserts or finds a holder.
   */
  private BulkResult readInserted(Connection c, PreparedStatement ps, List<NewJob> jobs)
      throws SQLException {
    int n = jobs.size();
    long[] ids = new long[n];
    boolean[] existing = new boolean[n];
    String[] uniqueKeys = new String[n];
    String[] keys = new String[n];
    List<Integer> conflicted = new ArrayList<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        int ord = (int) rs.getLong(1) - 1;
        ids[ord] = rs.getLong(2);
        if (rs.wasNull()) {
          conflicted.add(ord);
          uniqueKeys[ord] = rs.getString(3);
          keys[ord] = rs.getString(4);
        }
      }
    }
    if (conflicted.isEmpty()) {
      return new BulkResult(ids, existing);
    }
    Map<String, Long> byKey =
        idsOf(c, getIdsByKeys, conflicted.stream().map(i -> keys[i]).filter(k -> k != null));
    Map<String, Long> byUniqueKey =
        idsOf(
            c,
            getIdsByUniqueKeys,
            conflicted.stream().map(i -> uniqueKeys[i]).filter(k -> k != null));
    List<Integer> again = new ArrayList<>();
    for (int i : conflicted) {
      Long id = keys[i] != null ? byKey.get(keys[i]) : null;
      if (id == null && uniqueKeys[i] != null) {
        id = byUniqueKey.get(uniqueKeys[i]);
      }
      if (id == null) {
        again.add(i);
      } else {
        ids[i] = id;
        existing[i] = true;
      }
    }
    if (!again.isEmpty()) {
      BulkResult r = enqueueManyEach(c, again.stream().map(jobs::get).toList());
      for (int k = 0; k < again.size(); k++) {
        ids[again.get(k)] = r.ids()[k];
        existing[again.get(k)] = r.existing()[k];
      }
    }
    return new BulkResult(ids, existing);
  }

  /** Key to id, read by {@code sql} (binds: the keys) for {@code keys}; empty for none. */
  private static Map<String, Long> idsOf(
      Connection c, String sql, java.util.stream.Stream<String> keys) throws SQLException {
    String[] wanted = keys.distinct().toArray(String[]::new);
    Map<String, Long> out = new HashMap<>();
    if (wanted.length == 0) {
      return out;
    }
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setArray(1, c.createArrayOf("text", wanted));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.put(rs.getString(1), rs.getLong(2));
        }
      }
    }
    return out;
  }

  /** The ids and existing flags a statement returns per request, as (ord, id, existing) rows. */
  private static BulkResult readEach(PreparedStatement ps, int n) throws SQLException {
    long[] ids = new long[n];
    boolean[] existing = new boolean[n];
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        int ord = (int) rs.getLong(1) - 1;
        ids[ord] = rs.getLong(2);
        existing[ord] = rs.getBoolean(3);
      }
    }
    return new BulkResult(ids, existing);
  }

  /** Draws {@code n} ids from the job table's identity sequence, ascending. */
  private long[] drawIds(Connection c, int n) throws SQLException {
    long[] ids = new long[n];
    try (PreparedStatement ps = c.prepareStatement(drawIds)) {
      ps.setInt(1, n);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        long first = rs.getLong(1);
        Array drawn = rs.getArray(3);
        if (drawn == null) {
          for (int i = 0; i < n; i++) {
            ids[i] = first + i;
          }
        } else {
          Object[] values = (Object[]) drawn.getArray();
          if (values.length != n) {
            throw new BatonException(
                "bulk enqueue drew " + values.length + " ids for " + n + " jobs");
          }
          for (int i = 0; i < n; i++) {
            ids[i] = ((Number) values[i]).longValue();
          }
        }
      }
    }
    return ids;
  }

  /** Binds {@link #REQUESTS} for {@code jobs} from parameter 1; returns the next parameter. */
  private static int bindRequests(PreparedStatement ps, Connection c, List<NewJob> jobs)
      throws SQLException {
    int n = jobs.size();
    Columns col = Columns.of(jobs);
    String[] by = new String[n];
    String[] fields = new String[n];
    Boolean[] perQueue = new Boolean[n];
    String[] period = new String[n];
    String[] states = new String[n];
    String[] replace = new String[n];
    String[] debounce = new String[n];
    String[] maxWait = new String[n];
    for (int i = 0; i < n; i++) {
      UniqueOptions u = jobs.get(i).unique();
      if (u != null) {
        by[i] = byOf(u);
        fields[i] = fieldsOf(u);
        perQueue[i] = u.perQueue();
        period[i] = interval(u.period());
        states[i] = statesOf(u);
        replace[i] = replaceOf(u);
        debounce[i] = interval(u.debounce());
        maxWait[i] = interval(u.maxWait());
      }
    }
    int i = 1;
    ps.setArray(i++, c.createArrayOf("text", col.kinds));
    ps.setArray(i++, c.createArrayOf("text", col.args));
    ps.setArray(i++, c.createArrayOf("text", col.queues));
    ps.setArray(i++, c.createArrayOf("text", col.runAts));
    ps.setArray(i++, c.createArrayOf("int4", col.priorities));
    ps.setArray(i++, c.createArrayOf("int4", col.maxAttempts));
    ps.setArray(i++, c.createArrayOf("text", col.keys));
    ps.setArray(i++, c.createArrayOf("text", col.metadata));
    ps.setArray(i++, c.createArrayOf("text", by));
    ps.setArray(i++, c.createArrayOf("text", fields));
    ps.setArray(i++, c.createArrayOf("bool", perQueue));
    ps.setArray(i++, c.createArrayOf("text", period));
    ps.setArray(i++, c.createArrayOf("text", states));
    ps.setArray(i++, c.createArrayOf("text", replace));
    ps.setArray(i++, c.createArrayOf("text", debounce));
    ps.setArray(i++, c.createArrayOf("text", maxWait));
    return i;
  }

  /** The columns every new job has, one array each, in the order of the jobs. */
  private static final class Columns {
    final String[] queues;
    final String[] kinds;
    final String[] args;
    final Integer[] priorities;
    final Integer[] maxAttempts;
    final String[] runAts;
    final String[] keys;
    final String[] metadata;

    private Columns(int n) {
      queues = new String[n];
      kinds = new String[n];
      args = new String[n];
      priorities = new Integer[n];
      maxAttempts = new Integer[n];
      runAts = new String[n];
      keys = new String[n];
      metadata = new String[n];
    }

    static Columns of(List<NewJob> jobs) {
      Columns col = new Columns(jobs.size());
      for (int i = 0; i < jobs.size(); i++) {
        NewJob j = jobs.get(i);
        col.queues[i] = j.queue();
        col.kinds[i] = j.kind();
        col.args[i] = j.args();
        col.priorities[i] = j.priority();
        col.maxAttempts[i] = j.maxAttempts();
        col.runAts[i] = Timestamps.text(j.runAt());
        col.keys[i] = j.idempotencyKey();
        col.metadata[i] = j.metadata();
      }
      return col;
    }
  }

  private BulkResult enqueueManyUnique(Connection c, List<NewJob> jobs) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(enqueueManyUnique)) {
      ps.setString(bindRequests(ps, c, jobs), schema.insertChannel());
      return readInserted(c, ps, jobs);
    }
  }

  private BulkResult enqueueManyEach(Connection c, List<NewJob> jobs) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(enqueueManyEach)) {
      bindRequests(ps, c, jobs);
      return readEach(ps, jobs.size());
    }
  }

  /**
   * Binds the columns of {@code jobs} as the arrays a bulk insert unnests, in this order: queues,
   * kinds, args, priorities, max attempts, run times, keys, metadata (parameters 1 to 8). The one
   * place a list of new jobs becomes columns, for ENQUEUE_MANY and WorkflowStore's insert.
   */
  static void bindColumns(Connection c, PreparedStatement ps, List<NewJob> jobs)
      throws SQLException {
    Columns col = Columns.of(jobs);
    ps.setArray(1, c.createArrayOf("text", col.queues));
    ps.setArray(2, c.createArrayOf("text", col.kinds));
    ps.setArray(3, c.createArrayOf("text", col.args));
    ps.setArray(4, c.createArrayOf("int4", col.priorities));
    ps.setArray(5, c.createArrayOf("int4", col.maxAttempts));
    ps.setArray(6, c.createArrayOf("text", col.runAts));
    ps.setArray(7, c.createArrayOf("text", col.keys));
    ps.setArray(8, c.createArrayOf("text", col.metadata));
  }

  private BulkResult enqueueByStatement(Connection c, List<NewJob> jobs) throws SQLException {
    int n = jobs.size();
    String[] keys = new String[n];
    for (int i = 0; i < n; i++) {
      keys[i] = jobs.get(i).idempotencyKey();
    }
    long[] ids = new long[n];
    boolean[] existing = new boolean[n];
    boolean[] found = new boolean[n];
    try (PreparedStatement ps = c.prepareStatement(enqueueMany)) {
      bindColumns(c, ps, jobs);
      ps.setString(9, schema.insertChannel());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          int ord = (int) rs.getLong(1) - 1;
          ids[ord] = rs.getLong(2);
          found[ord] = true;
        }
      }
    }
    List<String> missingKeys = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (!found[i]) {
        if (keys[i] == null) {
          throw new BatonException(
              "bulk enqueue returned no row for a job without idempotency key");
        }
        missingKeys.add(keys[i]);
      }
    }
    if (!missingKeys.isEmpty()) {
      Map<String, Long> byKey = new HashMap<>();
      try (PreparedStatement ps = c.prepareStatement(getIdsByKeys)) {
        ps.setArray(1, c.createArrayOf("text", missingKeys.toArray(new String[0])));
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            byKey.put(rs.getString(1), rs.getLong(2));
          }
        }
      }
      for (int i = 0; i < n; i++) {
        if (!found[i]) {
          Long id = byKey.get(keys[i]);
          if (id == null) {
            throw new BatonException(
                "cannot enqueue job (idempotency_key="
                    + keys[i]
                    + "): the key conflicted but its job was deleted meanwhile; retry the call");
          }
          ids[i] = id;
          existing[i] = true;
        }
      }
    }
    return new BulkResult(ids, existing);
  }
}
