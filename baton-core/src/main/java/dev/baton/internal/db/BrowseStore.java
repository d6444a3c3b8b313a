package dev.baton.internal.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The reads of a person browsing the queue (the dashboard, through {@code dev.baton.admin}): pages
 * of jobs by keyset, capped counts of a filtered set, completions per time bucket, and the periodic
 * schedules. Read-only; each read is one statement.
 *
 * <p>A page is ordered by the index its state can read, so that the next page starts where the last
 * one ended (a keyset, never an {@code OFFSET}) and costs the same on the thousandth page as on the
 * first: no state, newest first by id (the primary key); a final state, most recently finalized
 * first ({@code job_finalized_idx}); {@code scheduled} or {@code retryable}, next due first ({@code
 * job_waiting_idx}); {@code available}, in claim order ({@code job_claim_idx}); {@code running},
 * latest attempt first (at most the cluster's concurrency of rows). One statement per order; each
 * names its partial index's state as a literal, so that every plan of it, custom or generic, can
 * read that index. A null filter matches every row: the server plans each execution with its
 * values, and a null value folds its condition away, as in {@link AdminStore}.
 *
 * <p>A queue or kind that no index of the order selects would be checked on every row the walk
 * reads until the page fills, all of the table for a filter matching few old jobs. Such a page
 * reads at most a budget of rows in its order and says where it stopped ({@link Scan}); the next
 * page starts after the last row read, so that paging on still visits every matching row once.
 *
 * <p>Not public API.
 */
public final class BrowseStore {

  /** How a page is ordered, which decides the shape of its keyset. */
  public enum Order {
    /** {@code id DESC}: key {@code (id)}. */
    NEWEST,
    /** {@code finalized_at DESC, id DESC}: key {@code (finalized_at, id)}. */
    FINALIZED,
    /** {@code scheduled_at, id}: key {@code (scheduled_at, id)}. */
    DUE,
    /** {@code queue, priority, scheduled_at, id}: key of all four. */
    CLAIM,
    /** {@code attempted_at DESC, id DESC}: key {@code (attempted_at, id)}. */
    ATTEMPTED
  }

  /**
   * Which jobs to read; null means any.
   *
   * @param state a stored state name
   * @param queue a queue name
   * @param kind a kind
   * @param id one job id
   * @param idempotencyKey one idempotency key
   * @param args JSON that the args contain ({@code @>}), as text
   * @param metadata JSON that the metadata contains, as text
   */
  public record Filter(
      String state,
      String queue,
      String kind,
      Long id,
      String idempotencyKey,
      String args,
      String metadata) {

    /** A filter without JSON containment. */
    public Filter(String state, String queue, String kind, Long id, String idempotencyKey) {
      this(state, queue, kind, id, idempotencyKey, null, null);
    }

    /** The order of a page of this filter. */
    public Order order() {
      if (state == null) {
        return Order.NEWEST;
      }
      return switch (state) {
        case "completed", "cancelled", "discarded" -> Order.FINALIZED;
        case "scheduled", "retryable" -> Order.DUE;
        case "available" -> Order.CLAIM;
        case "running" -> Order.ATTEMPTED;
        case "pending" -> Order.NEWEST; // no index of its own: a budgeted walk (budgeted())
        default -> throw new IllegalArgumentException("unknown job state \"" + state + "\"");
      };
    }

    /**
     * Whether a page of this filter checks a condition on rows that its order's index does not
     * select (a queue or a kind; a queue in claim order is served by {@code job_claim_idx}), so
     * that its walk is bounded by a scan budget. An id or an idempotency key selects at most one
     * row through its own index, and the running rows are few: neither is bounded.
     */
    public boolean budgeted() {
      if (id != null || idempotencyKey != null) {
        return false;
      }
      boolean json = args != null || metadata != null;
      return switch (order()) {
        case NEWEST, FINALIZED, DUE ->
            queue != null || kind != null || json || "pending".equals(state);
        case CLAIM -> kind != null || json;
        case ATTEMPTED -> false;
      };
    }
  }

  /**
   * Where a page starts: after the job with these sort-key values (those of {@link Filter#order()}
   * that apply; the others are ignored).
   *
   * @param id the last job's id
   * @param atMicros its finalized_at, scheduled_at or attempted_at, as microseconds since the epoch
   * @param queue its queue ({@link Order#CLAIM})
   * @param priority its priority ({@link Order#CLAIM})
   */
  public record After(long id, long atMicros, String queue, int priority) {}

  // JSON containment of args and metadata: checked on the rows read (no index on either, which
  // would cost every enqueue an entry). Binds: args twice, metadata twice.
  @Fragment
  private static final String CONTAINS =
      """
      (?::jsonb IS NULL OR j.args @> ?::jsonb) AND (?::jsonb IS NULL OR j.metadata @> ?::jsonb)""";

  // A null filter matches every row (see the class comment). Binds: id twice, key twice, queue
  // twice, kind twice, CONTAINS'.
  @Fragment
  private static final String FILTERS =
      """
      (?::bigint IS NULL OR j.id = ?) AND (?::text IS NULL OR j.idempotency_key = ?)
        AND (?::text IS NULL OR j.queue = ?) AND (?::text IS NULL OR j.kind = ?)
        AND """
          + CONTAINS;

  // Every page statement: the job columns JobRow#read takes, in its order, from job j, of the rows
  // that match the filters, then its walk. ORDER BY names j's columns: the selected epoch
  // microseconds carry the same names, and sorting by those would sort every match, as no index
  // holds them. Times of the keyset are bound as epoch plus a count of microseconds, exact (a
  // double would round them). Binds: FILTERS', then the walk's.
  @Fragment
  private static final String PAGE =
      "SELECT " + JobRow.COLUMNS + "\nFROM ${schema}.job j\nWHERE " + FILTERS;

  // The walk of each order, which a page and a budgeted page (SCAN_) of that order share: its
  // conditions, which its index serves, and its order, up to a limit. Binds: the after-key, then
  // the limit.
  @Fragment
  private static final String NEWEST_WALK =
      """
      (?::bigint IS NULL OR j.id < ?)
      ORDER BY j.id DESC LIMIT ?""";

  // job_finalized_idx is (state, finalized_at) WHERE finalized_at IS NOT NULL, repeated here so
  // the planner may read it. Binds: state, after-id, after-at, after-id, limit.
  @Fragment
  private static final String FINALIZED_WALK =
      """
      j.state = ? AND j.finalized_at IS NOT NULL
        AND (?::bigint IS NULL OR (j.finalized_at, j.id)
             < (timestamptz 'epoch' + ? * interval '1 microsecond', ?))
      ORDER BY j.finalized_at DESC, j.id DESC LIMIT ?""";

  // job_waiting_idx holds the scheduled and retryable rows; a plan with the state's value proves
  // its predicate (repeating the predicate here would count its selectivity twice, and the planner
  // then sorts what it takes for a few rows). Binds: state, after-id, after-at, after-id, limit.
  @Fragment
  private static final String DUE_WALK =
      """
      j.state = ?
        AND (?::bigint IS NULL OR (j.scheduled_at, j.id)
             > (timestamptz 'epoch' + ? * interval '1 microsecond', ?))
      ORDER BY j.scheduled_at, j.id LIMIT ?""";

  // job_claim_idx is (queue, priority, scheduled_at, id) of the available rows: the claim order.
  // Binds: after-queue, after-queue, after-priority, after-at, after-id, limit.
  @Fragment
  private static final String CLAIM_WALK =
      """
      j.state = 'available'
        AND (?::text IS NULL OR (j.queue, j.priority, j.scheduled_at, j.id)
             > (?, ?, timestamptz 'epoch' + ? * interval '1 microsecond', ?))
      ORDER BY j.queue, j.priority, j.scheduled_at, j.id LIMIT ?""";

  // Binds: the filters, after-id twice, limit.
  private static final String PAGE_NEWEST = PAGE + "\n  AND " + NEWEST_WALK;

  // Binds: the filters, state, after-id, after-at, after-id, limit.
  private static final String PAGE_FINALIZED = PAGE + "\n  AND " + FINALIZED_WALK;

  // Binds: the filters, state, after-id, after-at, after-id, limit.
  private static final String PAGE_DUE = PAGE + "\n  AND " + DUE_WALK;

  // Binds: the filters, after-queue, after-queue, after-priority, after-at, after-id, limit.
  private static final String PAGE_CLAIM = PAGE + "\n  AND " + CLAIM_WALK;

  // job_running_idx holds the running rows, few. Binds: the filters, after-id, after-at,
  // after-id, limit.
  private static final String PAGE_ATTEMPTED =
      PAGE
          + """

            AND j.state = 'running'
            AND (?::bigint IS NULL OR (j.attempted_at, j.id)
                 < (timestamptz 'epoch' + ? * interval '1 microsecond', ?))
          ORDER BY j.attempted_at DESC, j.id DESC LIMIT ?
          """;

  // The budgeted pages: the inner select walks the order's index with only the conditions it
  // serves (its state, the keyset, a queue in claim order) and stops after the budget's rows; the
  // queue and kind are checked outside it, on those rows only. The row the walk read last (its
  // position equals the budget) is returned too, matching or not, so that the next page starts
  // after it rather than reading the same rows again. The walk carries only the sort key and the
  // match, so that its sort of ties moves narrow rows; the returned rows are looked up by id (a
  // LATERAL whose LIMIT keeps it from being flattened into a join the planner could hash: by the
  // primary key, one per returned row). The outer ORDER BY follows the inner one, which the
  // planner keeps without a sort. Binds of each: MATCHED's, then the walk's own, the budget, the
  // budget again, the limit.

  // The head of a budgeted page, up to the walk's own columns: the columns JobRow#read takes, of
  // the row looked up by id (j), and the walk's match and position.
  @Fragment
  private static final String SCAN =
      "SELECT " + JobRow.COLUMNS_OF_J + ", s.matched, s.n\nFROM (\n  SELECT j.id";

  // The match of a budgeted page's row. The state is checked here for the pending rows, which no
  // index of their own walks (the newest walk reads every state); the other walks select their
  // state already. Binds: queue twice, kind twice, state twice, CONTAINS'.
  @Fragment
  private static final String MATCHED =
      "(?::text IS NULL OR j.queue = ?) AND (?::text IS NULL OR j.kind = ?)\n"
          + "  AND (?::text IS NULL OR j.state = ?)\n  AND "
          + CONTAINS
          + " AS matched";

  // The end of a budgeted page's walk, and the lookup of its rows: those that match, and the last
  // one read. Binds: the budget.
  @Fragment
  private static final String SCANNED =
      """
      ) s
      CROSS JOIN LATERAL (SELECT * FROM ${schema}.job x WHERE x.id = s.id LIMIT 1) j
      WHERE s.matched OR s.n = ?""";

  private static final String SCAN_NEWEST =
      SCAN
          + ",\n"
          + MATCHED
          + """
          ,
                 row_number() OVER (ORDER BY j.id DESC) AS n
            FROM ${schema}.job j
            WHERE
          """
          + NEWEST_WALK
          + "\n"
          + SCANNED
          + "\nORDER BY s.id DESC LIMIT ?";

  private static final String SCAN_FINALIZED =
      SCAN
          + ", j.finalized_at,\n"
          + MATCHED
          + """
          ,
                 row_number() OVER (ORDER BY j.finalized_at DESC, j.id DESC) AS n
            FROM ${schema}.job j
            WHERE
          """
          + FINALIZED_WALK
          + "\n"
          + SCANNED
          + "\nORDER BY s.finalized_at DESC, s.id DESC LIMIT ?";

  private static final String SCAN_DUE =
      SCAN
          + ", j.scheduled_at,\n"
          + MATCHED
          + """
          ,
                 row_number() OVER (ORDER BY j.scheduled_at, j.id) AS n
            FROM ${schema}.job j
            WHERE
          """
          + DUE_WALK
          + "\n"
          + SCANNED
          + "\nORDER BY s.scheduled_at, s.id LIMIT ?";

  // The queue is served by job_claim_idx: it stays inside, only the kind is checked outside.
  private static final String SCAN_CLAIM =
      SCAN
          + ", j.queue, j.priority, j.scheduled_at,\n"
          + MATCHED
          + """
          ,
                 row_number() OVER (ORDER BY j.queue, j.priority, j.scheduled_at, j.id) AS n
            FROM ${schema}.job j
            WHERE (?::text IS NULL OR j.queue = ?) AND
          """
          + CLAIM_WALK
          + "\n"
          + SCANNED
          + "\nORDER BY s.queue, s.priority, s.scheduled_at, s.id LIMIT ?";

  // The capped count: LIMIT inside, so a filter matching millions stops at the cap. Binds: the
  // filters, state twice, cap.
  private static final String COUNT =
      """
      SELECT count(*) FROM (
        SELECT 1 FROM ${schema}.job j
        WHERE
      """
          + FILTERS
          + """

          AND (?::text IS NULL OR j.state = ?)
        LIMIT ?
      ) x
      """;

  // Completions per bucket and queue: completed rows still kept (job_finalized_idx, bounded to the
  // window) and the counts of completions that deleted their row (job_completions). A bucket of
  // job_completions counts where it starts, as in queue_stats. Bucket 0 is the newest. Binds:
  // bucket seconds, window seconds, bucket seconds, window seconds.
  private static final String COMPLETIONS =
      """
      SELECT queue, ago, sum(n)::bigint FROM (
        SELECT queue,
               floor(extract(epoch FROM now() - finalized_at) / ?)::int AS ago,
               count(*) AS n
        FROM ${schema}.job
        WHERE state = 'completed' AND finalized_at IS NOT NULL
          AND finalized_at > now() - ? * interval '1 second'
        GROUP BY 1, 2
        UNION ALL
        SELECT queue,
               floor(extract(epoch FROM now() - bucket) / ?)::int,
               sum(n)
        FROM ${schema}.job_completions
        WHERE bucket > now() - ? * interval '1 second'
        GROUP BY 1, 2
      ) c
      WHERE ago >= 0
      GROUP BY 1, 2
      ORDER BY 1, 2
      """;

  // The history (job_stat_minute) of the last window, per queue, in buckets of whole minutes that
  // end with the current minute ("ago" 0 holds it). Reads the window's minute rows by the primary
  // key's range: at most one row per minute, queue and kind. Binds: bucket s, window s.
  private static final String HISTORY =
      """
      WITH cur AS (SELECT to_timestamp(floor(extract(epoch FROM now()) / 60) * 60) AS minute)
      SELECT s.queue, floor(extract(epoch FROM cur.minute - s.minute) / ?)::int AS ago,
             sum(s.completed)::bigint, sum(s.failed)::bigint, sum(s.rescued)::bigint,
             sum(s.cancelled)::bigint, cur.minute
      FROM ${schema}.job_stat_minute s, cur
      WHERE s.minute > cur.minute - ? * interval '1 second' AND s.minute <= cur.minute
      GROUP BY s.queue, 2, cur.minute
      ORDER BY 1, 2
      """;

  // The kinds that finished in the last day, of one queue or all (NULL): the minute rows of the day
  // by the primary key's range. Binds: queue twice, limit.
  private static final String KINDS =
      """
      SELECT DISTINCT kind FROM ${schema}.job_stat_minute
      WHERE minute > now() - interval '1 day' AND kind <> ''
        AND (?::text IS NULL OR queue = ?)
      ORDER BY kind
      LIMIT ?
      """;

  // The failed attempts recorded in the last window (error entries; a cancel is none), grouped by
  // queue, kind, error and root cause (the class of the trace's last "Caused by:"), the largest
  // groups first. Reads the rows that can hold such an entry as the queue_stats view does: those
  // finalized in the window (job_finalized_idx), due in it (job_waiting_idx, job_claim_idx) and the
  // running ones; the cost grows with the jobs that ended or were retried in the window. Binds:
  // window seconds three times, limit.
  private static final String FAILURES =
      """
      WITH recent AS (
        SELECT id, queue, kind, errors FROM ${schema}.job
        WHERE state IN ('completed', 'cancelled', 'discarded')
          AND finalized_at > now() - ? * interval '1 second'
        UNION ALL
        SELECT id, queue, kind, errors FROM ${schema}.job
        WHERE state IN ('scheduled', 'retryable', 'available')
          AND scheduled_at > now() - ? * interval '1 second'
        UNION ALL
        SELECT id, queue, kind, errors FROM ${schema}.job WHERE state = 'running'
      ),
      entries AS (
        SELECT r.id, r.queue, r.kind, x ->> 'error' AS error,
               substring(x ->> 'trace' FROM '.*Caused by: ([^:\n]+)') AS root,
               x ->> 'message' AS message, (x ->> 'at')::timestamptz AS at
        FROM recent r CROSS JOIN LATERAL jsonb_array_elements(r.errors) x
        WHERE x ->> 'error' IS DISTINCT FROM 'cancelled'
      )
      SELECT queue, kind, error, root, count(*),
             count(*) FILTER (WHERE at > now() - interval '5 minutes'),
             (extract(epoch FROM min(at)) * 1000000)::bigint,
             (extract(epoch FROM max(at)) * 1000000)::bigint,
             (array_agg(id ORDER BY at DESC, id DESC))[1],
             (array_agg(message ORDER BY at DESC, id DESC))[1]
      FROM entries
      WHERE at > now() - ? * interval '1 second'
      GROUP BY queue, kind, error, root
      ORDER BY count(*) DESC, queue, kind, error, root
      LIMIT ?
      """;

  // Wait (due to start) and run (start to end) times of the latest completions in the window, per
  // queue and kind: the newest completed rows first through job_finalized_idx, at most a sample of
  // them, so the statement reads at most the sample's rows however many completed. Times in
  // milliseconds; percentiles 50, 95 and 99. Binds: window seconds, sample.
  private static final String LATENCIES =
      """
      WITH recent AS (
        SELECT queue, kind,
               extract(epoch FROM attempted_at - scheduled_at) * 1000 AS wait_ms,
               extract(epoch FROM finalized_at - attempted_at) * 1000 AS run_ms
        FROM ${schema}.job
        WHERE state = 'completed' AND finalized_at IS NOT NULL
          AND finalized_at > now() - ? * interval '1 second'
        ORDER BY finalized_at DESC
        LIMIT ?
      )
      SELECT queue, kind, count(*),
             percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY greatest(wait_ms, 0)),
             percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY greatest(run_ms, 0))
      FROM recent
      WHERE wait_ms IS NOT NULL AND run_ms IS NOT NULL
      GROUP BY queue, kind
      ORDER BY queue, kind
      """;

  private static final String PERIODIC =
      """
      SELECT name, schedule, (extract(epoch FROM last_due_at) * 1000000)::bigint,
             last_job_id, (extract(epoch FROM updated_at) * 1000000)::bigint
      FROM ${schema}.periodic
      ORDER BY name
      """;

  private final String pageNewest;
  private final String pageFinalized;
  private final String pageDue;
  private final String pageClaim;
  private final String pageAttempted;
  private final String scanNewest;
  private final String scanFinalized;
  private final String scanDue;
  private final String scanClaim;
  private final String count;
  private final String completions;
  private final String periodic;
  private final String failures;
  private final String latencies;
  private final String history;
  private final String kinds;

  /** The store of {@code schema}. */
  public BrowseStore(SchemaName schema) {
    this.pageNewest = schema.expand(PAGE_NEWEST);
    this.pageFinalized = schema.expand(PAGE_FINALIZED);
    this.pageDue = schema.expand(PAGE_DUE);
    this.pageClaim = schema.expand(PAGE_CLAIM);
    this.pageAttempted = schema.expand(PAGE_ATTEMPTED);
    this.scanNewest = schema.expand(SCAN_NEWEST);
    this.scanFinalized = schema.expand(SCAN_FINALIZED);
    this.scanDue = schema.expand(SCAN_DUE);
    this.scanClaim = schema.expand(SCAN_CLAIM);
    this.count = schema.expand(COUNT);
    this.completions = schema.expand(COMPLETIONS);
    this.periodic = schema.expand(PERIODIC);
    this.failures = schema.expand(FAILURES);
    this.latencies = schema.expand(LATENCIES);
    this.history = schema.expand(HISTORY);
    this.kinds = schema.expand(KINDS);
  }

  /**
   * A page's rows: the matching ones in the filter's order, and the row the walk read last when its
   * scan budget ran out (null when the walk was not bounded or read fewer rows than the budget, so
   * that no row after the matches remains unread).
   *
   * @param matches up to the limit's jobs matching the filter
   * @param lastScanned the last row read, matching or not, when the budget ran out
   */
  public record Scan(List<JobRow> matches, JobRow lastScanned) {}

  /**
   * Up to {@code limit} jobs matching {@code filter}, in its order, after {@code after} (null: from
   * the start). A {@link Filter#budgeted() budgeted} filter reads at most {@code budget} rows of
   * its order's index; any other reads as many as it takes to fill the page.
   */
  public Scan page(Connection c, Filter filter, After after, int limit, int budget)
      throws SQLException {
    Order order = filter.order();
    boolean budgeted = filter.budgeted();
    String sql =
        switch (order) {
          case NEWEST -> budgeted ? scanNewest : pageNewest;
          case FINALIZED -> budgeted ? scanFinalized : pageFinalized;
          case DUE -> budgeted ? scanDue : pageDue;
          case CLAIM -> budgeted ? scanClaim : pageClaim;
          case ATTEMPTED -> pageAttempted;
        };
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      int i;
      if (budgeted) {
        ps.setString(1, filter.queue());
        ps.setString(2, filter.queue());
        ps.setString(3, filter.kind());
        ps.setString(4, filter.kind());
        ps.setString(5, filter.state());
        ps.setString(6, filter.state());
        i = bindContains(ps, 7, filter);
        if (order == Order.CLAIM) {
          ps.setString(i++, filter.queue());
          ps.setString(i++, filter.queue());
        }
      } else {
        i = bindFilters(ps, filter);
      }
      Long afterId = after == null ? null : after.id();
      switch (order) {
        case NEWEST -> {
          setLong(ps, i++, afterId);
          setLong(ps, i++, afterId);
        }
        case FINALIZED, DUE, ATTEMPTED -> {
          if (order != Order.ATTEMPTED) {
            ps.setString(i++, filter.state());
          }
          setLong(ps, i++, afterId);
          setLong(ps, i++, after == null ? null : after.atMicros());
          setLong(ps, i++, afterId);
        }
        case CLAIM -> {
          String afterQueue = after == null ? null : after.queue();
          ps.setString(i++, afterQueue);
          ps.setString(i++, afterQueue);
          setInt(ps, i++, after == null ? null : after.priority());
          setLong(ps, i++, after == null ? null : after.atMicros());
          setLong(ps, i++, afterId);
        }
      }
      if (budgeted) {
        ps.setInt(i++, budget);
        ps.setInt(i++, budget);
      }
      ps.setInt(i, limit);
      List<JobRow> matches = new ArrayList<>();
      JobRow lastScanned = null;
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          JobRow row = JobRow.read(rs, false);
          if (!budgeted || rs.getBoolean(20)) {
            matches.add(row);
          }
          if (budgeted && rs.getLong(21) == budget) {
            lastScanned = row;
          }
        }
      }
      return new Scan(matches, lastScanned);
    }
  }

  /** How many jobs match {@code filter}, counting no further than {@code cap}. */
  public long count(Connection c, Filter filter, long cap) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(count)) {
      // Planned with its values every time, never as a server-side statement's generic plan: the
      // state's partial indexes (job_claim_idx, job_waiting_idx, job_running_idx) serve only a
      // plan that sees the state, and a generic plan reads the whole table instead.
      ps.unwrap(org.postgresql.PGStatement.class).setPrepareThreshold(0);
      int i = bindFilters(ps, filter);
      ps.setString(i++, filter.state());
      ps.setString(i++, filter.state());
      ps.setLong(i, cap);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /**
   * One group of failed attempts: its queue, kind, error and root cause, how many in the window and
   * in its last 5 minutes, the first and last (microseconds since the epoch), the job of the last
   * and its message.
   */
  public record FailureRow(
      String queue,
      String kind,
      String error,
      String rootCause,
      long count,
      long count5m,
      long firstMicros,
      long lastMicros,
      long lastJobId,
      String lastMessage) {}

  /**
   * The failed attempts of the last {@code windowSeconds}, grouped by queue, kind, error and root
   * cause, the largest groups first, at most {@code limit} groups.
   */
  public List<FailureRow> failures(Connection c, long windowSeconds, int limit)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(failures)) {
      ps.setLong(1, windowSeconds);
      ps.setLong(2, windowSeconds);
      ps.setLong(3, windowSeconds);
      ps.setInt(4, limit);
      List<FailureRow> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(
              new FailureRow(
                  rs.getString(1),
                  rs.getString(2),
                  rs.getString(3),
                  rs.getString(4),
                  rs.getLong(5),
                  rs.getLong(6),
                  rs.getLong(7),
                  rs.getLong(8),
                  rs.getLong(9),
                  rs.getString(10)));
        }
      }
      return out;
    }
  }

  /**
   * Wait and run times of one queue and kind: completions sampled, then the 50th, 95th and 99th
   * percentiles of each in milliseconds.
   */
  public record LatencyRow(
      String queue, String kind, long sampled, double[] waitMs, double[] runMs) {}

  /**
   * Wait and run time percentiles per queue and kind of the latest {@code sample} completions of
   * the last {@code windowSeconds}.
   */
  public List<LatencyRow> latencies(Connection c, long windowSeconds, int sample)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(latencies)) {
      ps.setLong(1, windowSeconds);
      ps.setInt(2, sample);
      List<LatencyRow> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(
              new LatencyRow(
                  rs.getString(1),
                  rs.getString(2),
                  rs.getLong(3),
                  doubles(rs.getArray(4)),
                  doubles(rs.getArray(5))));
        }
      }
      return out;
    }
  }

  private static double[] doubles(java.sql.Array a) throws SQLException {
    Object[] values = (Object[]) a.getArray();
    double[] out = new double[values.length];
    for (int i = 0; i < values.length; i++) {
      out[i] = ((Number) values[i]).doubleValue();
    }
    return out;
  }

  /** Completions of one queue in one bucket; bucket 0 is the newest. */
  public record Completions(String queue, int bucketsAgo, long completed) {}

  /**
   * Completions per queue and bucket of {@code bucketSeconds} over the last {@code windowSeconds},
   * by queue and bucket; buckets without completions are absent.
   */
  public List<Completions> completions(Connection c, long windowSeconds, long bucketSeconds)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(completions)) {
      ps.setLong(1, bucketSeconds);
      ps.setLong(2, windowSeconds);
      ps.setLong(3, bucketSeconds);
      ps.setLong(4, windowSeconds);
      List<Completions> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(new Completions(rs.getString(1), rs.getInt(2), rs.getLong(3)));
        }
      }
      return out;
    }
  }

  /**
   * Finished jobs of one queue in one bucket of {@link #history}, {@code bucketsAgo} 0 the last;
   * {@code counts} are completed, failed, rescued and cancelled.
   */
  public record HistoryRow(String queue, int bucketsAgo, long[] counts, Instant currentMinute) {}

  /**
   * The history of the last {@code windowSeconds}, per queue, in buckets of {@code bucketSeconds}.
   */
  public List<HistoryRow> history(Connection c, long windowSeconds, long bucketSeconds)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(history)) {
      ps.setLong(1, bucketSeconds);
      ps.setLong(2, windowSeconds);
      List<HistoryRow> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(
              new HistoryRow(
                  rs.getString(1),
                  rs.getInt(2),
                  new long[] {rs.getLong(3), rs.getLong(4), rs.getLong(5), rs.getLong(6)},
                  Timestamps.instant(rs, 7)));
        }
      }
      return out;
    }
  }

  /** Up to {@code limit} kinds that finished in the last day, of {@code queue} (null: any). */
  public List<String> kinds(Connection c, String queue, int limit) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(kinds)) {
      ps.setString(1, queue);
      ps.setString(2, queue);
      ps.setInt(3, limit);
      List<String> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
      return out;
    }
  }

  /** A row of the {@code periodic} table. */
  public record PeriodicRow(
      String name, String schedule, Instant lastDueAt, Long lastJobId, Instant updatedAt) {}

  /** Every periodic schedule the leader has handled, by name. */
  public List<PeriodicRow> periodic(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(periodic);
        ResultSet rs = ps.executeQuery()) {
      List<PeriodicRow> out = new ArrayList<>();
      while (rs.next()) {
        long lastJob = rs.getLong(4);
        Long lastJobId = rs.wasNull() ? null : lastJob;
        out.add(
            new PeriodicRow(
                rs.getString(1),
                rs.getString(2),
                Timestamps.instantOfMicros(rs, 3),
                lastJobId,
                Timestamps.instantOfMicros(rs, 5)));
      }
      return out;
    }
  }

  // Binds id, key, queue and kind, each twice (tested for null, then compared); returns the next
  // index.
  private static int bindFilters(PreparedStatement ps, Filter f) throws SQLException {
    setLong(ps, 1, f.id());
    setLong(ps, 2, f.id());
    ps.setString(3, f.idempotencyKey());
    ps.setString(4, f.idempotencyKey());
    ps.setString(5, f.queue());
    ps.setString(6, f.queue());
    ps.setString(7, f.kind());
    ps.setString(8, f.kind());
    return bindContains(ps, 9, f);
  }

  private static int bindContains(PreparedStatement ps, int i, Filter f) throws SQLException {
    ps.setString(i, f.args());
    ps.setString(i + 1, f.args());
    ps.setString(i + 2, f.metadata());
    ps.setString(i + 3, f.metadata());
    return i + 4;
  }

  private static void setLong(PreparedStatement ps, int i, Long v) throws SQLException {
    if (v == null) {
      ps.setNull(i, java.sql.Types.BIGINT);
    } else {
      ps.setLong(i, v);
    }
  }

  private static void setInt(PreparedStatement ps, int i, Integer v) throws SQLException {
    if (v == null) {
      ps.setNull(i, java.sql.Types.INTEGER);
    } else {
      ps.setInt(i, v);
    }
  }
}
