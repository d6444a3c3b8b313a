package dev.baton.internal.db;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.BatonException;
import dev.baton.EnqueueOptions;
import dev.baton.InvalidJobException;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
  // is not paused (as HolderStore's claim tests it), the row is written already claimed by the
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
          + HolderStore.QUEUE_NOT_PAUSED
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
   * the requests. The statement wins for small calls (fewer round trips), COPY for large ones; see
   * docs/BENCHMARKS.md for where they cross. Smaller calls, and ones that need the conflict check
   * or a run time, use the statement.
   */
  public static final int COPY_MIN_JOBS = 256;

  private final SchemaName schema;
  private final String enqueue;
  private final String enqueueClaiming;
  private final String getByKey;
  private final String enqueueMany;
  private final String getIdsByKeys;
  private final String drawIds;
  private final String copyJobs;

  /** Prepares the SQL text for {@code schema}. */
  public EnqueueStore(SchemaName schema) {
    this.schema = schema;
    this.enqueue = schema.expand(ENQUEUE);
    this.enqueueClaiming = schema.expand(ENQUEUE_CLAIMING);
    this.getByKey = schema.expand(GET_BY_KEY);
    this.enqueueMany = schema.expand(ENQUEUE_MANY);
    this.getIdsByKeys = schema.expand(GET_IDS_BY_KEYS);
    this.drawIds = schema.expand(DRAW_IDS);
    this.copyJobs = schema.expand(COPY_JOBS);
  }

  /** A new job to insert. Args and metadata are JSON text. */
  public record NewJob(
      String queue,
      String kind,
      String args,
      int priority,
      int maxAttempts,
      Instant runAt,
      String idempotencyKey,
      String metadata) {

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
              metadata);
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
   * in whatever transaction {@code c} is in.
   */
  public JobRow enqueue(Connection c, NewJob job) throws SQLException {
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
    return new EnqueuedClaim(enqueue(c, job), null);
  }

  /** Ids per request, in order, and whether each matched an existing job by key. */
  public record BulkResult(long[] ids, boolean[] existing) {}

  /**
   * Inserts many jobs on {@code c}, in whatever transaction {@code c} is in (an autocommit {@code
   * c} gets one transaction for the call). Returns, per job in order, its id and whether its
   * idempotency key matched an existing job. Ids ascend in request order.
   */
  public BulkResult enqueueMany(Connection c, List<NewJob> jobs) throws SQLException {
    if (jobs.size() >= COPY_MIN_JOBS
        && jobs.stream().allMatch(j -> j.idempotencyKey() == null && j.runAt() == null)
        && c.isWrapperFor(PGConnection.class)) {
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

  /**
   * Binds the columns of {@code jobs} as the arrays a bulk insert unnests, in this order: queues,
   * kinds, args, priorities, max attempts, run times, keys, metadata (parameters 1 to 8). The one
   * place a list of new jobs becomes columns, for ENQUEUE_MANY and WorkflowStore's insert.
   */
  static void bindColumns(Connection c, PreparedStatement ps, List<NewJob> jobs)
      throws SQLException {
    int n = jobs.size();
    String[] queues = new String[n];
    String[] kinds = new String[n];
    String[] args = new String[n];
    Integer[] priorities = new Integer[n];
    Integer[] maxAttempts = new Integer[n];
    String[] runAts = new String[n];
    String[] keys = new String[n];
    String[] metadata = new String[n];
    for (int i = 0; i < n; i++) {
      NewJob j = jobs.get(i);
      queues[i] = j.queue();
      kinds[i] = j.kind();
      args[i] = j.args();
      priorities[i] = j.priority();
      maxAttempts[i] = j.maxAttempts();
      runAts[i] = Timestamps.text(j.runAt());
      keys[i] = j.idempotencyKey();
      metadata[i] = j.metadata();
    }
    ps.setArray(1, c.createArrayOf("text", queues));
    ps.setArray(2, c.createArrayOf("text", kinds));
    ps.setArray(3, c.createArrayOf("text", args));
    ps.setArray(4, c.createArrayOf("int4", priorities));
    ps.setArray(5, c.createArrayOf("int4", maxAttempts));
    ps.setArray(6, c.createArrayOf("text", runAts));
    ps.setArray(7, c.createArrayOf("text", keys));
    ps.setArray(8, c.createArrayOf("text", metadata));
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
