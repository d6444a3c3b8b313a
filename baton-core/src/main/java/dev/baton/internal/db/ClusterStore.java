package dev.baton.internal.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.sql.DataSource;

/**
 * Statements on the cluster tables: the node registry, leader leases and queue controls. Times
 * default to the database clock; a non-null {@code now} (tests) replaces it.
 *
 * <p>Not public API.
 */
public final class ClusterStore {

  // Binds: id, host, pid, queues, version, now, now, session lock.
  private static final String REGISTER =
      """
      INSERT INTO ${schema}.node (id, host, pid, queues, version, started_at, heartbeat_at,
                                  session_lock)
      VALUES (?, ?, ?, ?, ?, coalesce(?::timestamptz, now()), coalesce(?::timestamptz, now()), ?)
      ON CONFLICT (id) DO UPDATE
      SET host = excluded.host, pid = excluded.pid, queues = excluded.queues,
          version = excluded.version, started_at = excluded.started_at,
          heartbeat_at = excluded.heartbeat_at, session_lock = excluded.session_lock
      """;

  // A node pruned while it was alive (a long pause) registers again on its next beat.
  // Binds: now, id.
  private static final String BEAT =
      "UPDATE ${schema}.node SET heartbeat_at = coalesce(?::timestamptz, now()) WHERE id = ?";

  private static final String DEREGISTER = "DELETE FROM ${schema}.node WHERE id = ?";

  private static final String NODES =
      """
      SELECT id, host, pid, queues, version, started_at, heartbeat_at, session_lock
      FROM ${schema}.node
      ORDER BY id""";

  // The server a session runs on, as far as advisory locks go: its start time (a restart ends
  // every session) and its WAL timeline (a promoted standby has none of the old primary's locks).
  // Epoch seconds, not timestamptz text, which would follow each session's TimeZone.
  @Fragment
  static final String SERVER =
      "(extract(epoch FROM pg_postmaster_start_time())::text || '/'"
          + " || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))";

  // A node's session lock, on its heartbeat connection: two int4 keys, the schema's and the node
  // id's hashes. A hash shared with another lock only makes a gone node look alive (its jobs then
  // wait for their leases), never the reverse. Once taken, the node's row records the server it
  // was taken on (locked_on), so a leader that never saw the node alive can still tell that the
  // lock was held there and is free now. Binds: schema key text, node id, node id.
  private static final String LOCK_NODE =
      """
      WITH l AS MATERIALIZED (SELECT pg_try_advisory_lock(hashtext(?), hashtext(?)) AS locked),
      stamp AS (
        UPDATE ${schema}.node SET locked_on = """
          + SERVER
          + """

        WHERE id = ? AND (SELECT locked FROM l)
        RETURNING id
      )
      SELECT locked FROM l
      """;

  // Gives the lock back before its connection returns to the pool, where it would outlive the
  // heartbeat session. Binds: schema key text, node id.
  private static final String UNLOCK_NODE = "SELECT pg_advisory_unlock(hashtext(?), hashtext(?))";

  // Whether the session lock of node n (LOCK_NODE's, its keys the hashes of the schema's key text
  // and of n.id) is held now. pg_locks needs no privileges. Binds: schema key text.
  @Fragment
  static final String NODE_LOCK_HELD =
      """
      EXISTS (SELECT 1 FROM pg_locks l
              WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
                AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                AND l.classid = hashtext(?)::oid AND l.objid = hashtext(n.id)::oid)""";

  // Whether the session lock of each registered node that takes one (other than the asking node)
  // is held now, whether the node took it on this server (LOCK_NODE's stamp), and since when the
  // server runs (a restart ends every session at once). Binds: schema key text, node id.
  private static final String NODE_LOCKS =
      "SELECT n.id,\n"
          + NODE_LOCK_HELD
          + ",\n n.locked_on IS NOT DISTINCT FROM "
          + SERVER
          + """
          ,
                 pg_postmaster_start_time(), now()
          FROM ${schema}.node n
          WHERE n.session_lock AND n.id <> ?
          """;

  // Takes over an expired lease under a new term. Binds: node id, now, now, now, ttl ms, role, now.
  private static final String TAKE_OVER =
      """
      UPDATE ${schema}.leader
      SET leader_id = ?, term = nextval('${schema}.leader_term_seq'),
          elected_at = coalesce(?::timestamptz, now()),
          renewed_at = coalesce(?::timestamptz, now()),
          expires_at = coalesce(?::timestamptz, now()) + make_interval(secs => ? / 1000.0)
      WHERE role = ? AND expires_at <= coalesce(?::timestamptz, now())
      RETURNING term
      """;

  // The first election of a role. Draws a term only when there is no row, so a follower's steps
  // do not use up terms (ON CONFLICT alone would call nextval before finding the conflict).
  // Binds: role, node id, now, now, now, ttl ms, role.
  private static final String FIRST_ELECTION =
      """
      INSERT INTO ${schema}.leader (role, leader_id, term, elected_at, renewed_at, expires_at)
      SELECT ?, ?, nextval('${schema}.leader_term_seq'), coalesce(?::timestamptz, now()),
             coalesce(?::timestamptz, now()),
             coalesce(?::timestamptz, now()) + make_interval(secs => ? / 1000.0)
      WHERE NOT EXISTS (SELECT 1 FROM ${schema}.leader WHERE role = ?)
      ON CONFLICT (role) DO NOTHING
      RETURNING term
      """;

  // Extends the holder's own, unexpired term. Binds: now, now, ttl ms, role, node id, term, now.
  private static final String RENEW =
      """
      UPDATE ${schema}.leader
      SET renewed_at = coalesce(?::timestamptz, now()),
          expires_at = coalesce(?::timestamptz, now()) + make_interval(secs => ? / 1000.0)
      WHERE role = ? AND leader_id = ? AND term = ? AND expires_at > coalesce(?::timestamptz, now())
      """;

  // Gives the role up and tells the other nodes at once. Binds: role, node id, term, channel.
  private static final String RESIGN =
      """
      WITH d AS (
        DELETE FROM ${schema}.leader WHERE role = ? AND leader_id = ? AND term = ? RETURNING role
      )
      SELECT count(*), (SELECT count(*) FROM (
        SELECT pg_notify(?, json_build_object('action', 'leader_resigned', 'role', role)::text)
        FROM d) n)
      FROM d
      """;

  private static final String LEADER =
      """
      SELECT role, leader_id, term, elected_at, renewed_at, expires_at FROM ${schema}.leader
      WHERE role = ?""";

  // Binds: queue, by, queue, channel, channel.
  private static final String PAUSE =
      """
      WITH up AS (
        INSERT INTO ${schema}.queue (name, paused_at, paused_by) VALUES (?, now(), ?)
        ON CONFLICT (name) DO UPDATE
        SET paused_at = coalesce(${schema}.queue.paused_at, now()),
            paused_by = CASE WHEN ${schema}.queue.paused_at IS NULL THEN excluded.paused_by
                             ELSE ${schema}.queue.paused_by END,
            updated_at = now()
        RETURNING name
      )
      SELECT pg_notify(?, json_build_object('action', 'queue_paused', 'queue', name)::text)
      FROM up
      """;

  // Resuming also wakes the queue's producers on the insert channel. Binds: queue, ctl, ins.
  private static final String RESUME =
      """
      WITH up AS (
        UPDATE ${schema}.queue SET paused_at = NULL, paused_by = NULL, updated_at = now()
        WHERE name = ? AND paused_at IS NOT NULL RETURNING name
      )
      SELECT pg_notify(?, json_build_object('action', 'queue_resumed', 'queue', name)::text),
             pg_notify(?, name)
      FROM up
      """;

  // The announcement of a changed limit ("up": the queue's name and its claim mode): on the
  // control channel, so that every node claims the queue with the statement that fits, and on the
  // insert channel, to wake its producers (a raised limit leaves room). Binds: ctl, ins.
  @Fragment
  private static final String LIMITED_ANSWER =
      """
      SELECT pg_notify(?, json_build_object('action', 'queue_limited', 'queue', name,
                                            'mode', mode)::text),
             pg_notify(?, name)
      FROM up""";

  // Sets or removes (NULL) a queue's cluster-wide concurrency limit (schema version 9). Every
  // node hears of it on the control channel, to claim the queue with the statement that fits, and
  // its producers are woken on the insert channel (a raised limit leaves room). Binds: queue,
  // limit, ctl, ins.
  private static final String LIMIT_CONCURRENCY =
      """
      WITH up AS (
        INSERT INTO ${schema}.queue AS q (name, concurrency_limit) VALUES (?, ?::int)
        ON CONFLICT (name) DO UPDATE
        SET concurrency_limit = excluded.concurrency_limit, updated_at = now()
        RETURNING q.name,
      """
          + HolderStore.CLAIM_MODE
          + " AS mode\n)\n"
          + LIMITED_ANSWER;

  // Sets or removes (NULLs) a queue's concurrency limit per key: at most key_limit of its jobs
  // running per value of args ->> key_field. Announced as LIMIT_CONCURRENCY's. Binds: queue, field,
  // limit, ctl, ins.
  private static final String LIMIT_CONCURRENCY_PER_KEY =
      """
      WITH up AS (
        INSERT INTO ${schema}.queue AS q (name, key_field, key_limit) VALUES (?, ?, ?::int)
        ON CONFLICT (name) DO UPDATE
        SET key_field = excluded.key_field, key_limit = excluded.key_limit, updated_at = now()
        RETURNING q.name,
      """
          + HolderStore.CLAIM_MODE
          + " AS mode\n)\n"
          + LIMITED_ANSWER;

  // Sets or removes (NULLs) a queue's rate limit: at most rate_limit starts in any window of
  // rate_period_ms, per value of args ->> rate_key_field when that is set (schema version 11), else
  // of the queue as a whole. Announced as LIMIT_CONCURRENCY's. Binds: queue, limit, period ms,
  // field, ctl, ins.
  private static final String LIMIT_RATE =
      """
      WITH up AS (
        INSERT INTO ${schema}.queue AS q (name, rate_limit, rate_period_ms, rate_key_field)
        VALUES (?, ?::int, ?::int, ?)
        ON CONFLICT (name) DO UPDATE
        SET rate_limit = excluded.rate_limit, rate_period_ms = excluded.rate_period_ms,
            rate_key_field = excluded.rate_key_field, updated_at = now()
        RETURNING q.name,
      """
          + HolderStore.CLAIM_MODE
          + " AS mode\n)\n"
          + LIMITED_ANSWER;

  // A removed rate limit's recorded starts, deleted in the transaction that removed it (after
  // LIMIT_RATE, whose upsert holds the queue's row): nothing counts them any more, and a rate set
  // again later starts from an empty window instead of one that a claim-less queue never pruned.
  // A claim that held the row before the removal has committed its starts by then (this statement
  // reads after the lock), so they go too; one that waited for the row and read the queue before
  // the removal may still record its starts after it, real starts that a rate set again counts and
  // prunes with its window. Binds: queue.
  private static final String REMOVE_RATE_LIMIT =
      "DELETE FROM ${schema}.queue_start WHERE queue = ?";

  // Sets a queue's concurrency limit per key and its rate limit per key together, on one field.
  // The database holds one key field for both (queue_rate_key_field_check, a row check), so a
  // change of their shared field set one at a time would pass through a row with two fields.
  // Announced as LIMIT_CONCURRENCY's. Binds: queue, field, key limit, rate limit, period ms, field,
  // ctl, ins.
  private static final String LIMIT_PER_KEY =
      """
      WITH up AS (
        INSERT INTO ${schema}.queue AS q
          (name, key_field, key_limit, rate_limit, rate_period_ms, rate_key_field)
        VALUES (?, ?, ?::int, ?::int, ?::int, ?)
        ON CONFLICT (name) DO UPDATE
        SET key_field = excluded.key_field, key_limit = excluded.key_limit,
            rate_limit = excluded.rate_limit, rate_period_ms = excluded.rate_period_ms,
            rate_key_field = excluded.rate_key_field, updated_at = now()
        RETURNING q.name,
      """
          + HolderStore.CLAIM_MODE
          + " AS mode\n)\n"
          + LIMITED_ANSWER;

  // What the key indexes (schema version 13) lack or have too many of: each row an action
  // ('create',
  // 'drop' or 'invalid'), an index name and the statement to run (CONCURRENTLY; none for
  // 'invalid').
  private static final String KEY_INDEX_CHANGES =
      "SELECT action, name, ddl FROM ${schema}.key_index_changes(true) ORDER BY action, name";

  // Sets a key's weight in its queue's fair share (schema version 13): a weight above 1 is stored
  // in
  // key_weights, a weight of 1 removes the key from it (1 is every key's weight by default). Read
  // by each keyed claim; nothing to announce. Binds: queue, weight, key, weight, key.
  private static final String WEIGH_KEY =
      """
      INSERT INTO ${schema}.queue AS q (name, key_weights)
      VALUES (?, CASE WHEN ?::int > 1 THEN jsonb_build_object(?::text, ?::int) END)
      ON CONFLICT (name) DO UPDATE
      SET key_weights = nullif(
              CASE WHEN excluded.key_weights IS NULL THEN coalesce(q.key_weights, '{}') - ?::text
                   ELSE coalesce(q.key_weights, '{}') || excluded.key_weights END,
              '{}'),
          updated_at = now()
      """;

  // The args fields of a queue's concurrency limit per key and rate limit per key (NULL: not
  // set). Binds: queue.
  private static final String KEY_FIELDS =
      "SELECT key_field, rate_key_field FROM ${schema}.queue WHERE name = ?";

  // The weights of a queue's keys, as a JSON object (NULL: none). Binds: queue.
  private static final String KEY_WEIGHTS =
      "SELECT key_weights::text FROM ${schema}.queue WHERE name = ?";

  // Every queue with a row, a job or a registered node working it.
  private static final String QUEUES =
      """
      SELECT n.name, q.paused_at, q.paused_by, q.concurrency_limit
      FROM (SELECT name FROM ${schema}.queue
            UNION SELECT DISTINCT queue FROM ${schema}.job
                  WHERE state IN ('available', 'running', 'scheduled', 'retryable')
            UNION SELECT DISTINCT unnest(queues) FROM ${schema}.node) n
      LEFT JOIN ${schema}.queue q ON q.name = n.name
      ORDER BY n.name
      """;

  private static final String PAUSED =
      "SELECT paused_at IS NOT NULL FROM ${schema}.queue WHERE name = ?";

  private final SchemaName schema;
  private final String register;
  private final String beat;
  private final String deregister;
  private final String nodes;
  private final String nodeLocks;
  private final String lockNode;
  private final String takeOver;
  private final String firstElection;
  private final String renew;
  private final String resign;
  private final String leader;
  private final String pause;
  private final String resume;
  private final String queues;
  private final String paused;
  private final String limitConcurrency;
  private final String limitConcurrencyPerKey;
  private final String limitRate;
  private final String removeRateLimit;
  private final String limitPerKey;
  private final String keyFields;
  private final String keyIndexChanges;
  private final String weighKey;
  private final String keyWeights;

  /** Prepares the SQL text for {@code schema}. */
  public ClusterStore(SchemaName schema) {
    this.schema = schema;
    this.register = schema.expand(REGISTER);
    this.beat = schema.expand(BEAT);
    this.deregister = schema.expand(DEREGISTER);
    this.nodes = schema.expand(NODES);
    this.nodeLocks = schema.expand(NODE_LOCKS);
    this.lockNode = schema.expand(LOCK_NODE);
    this.takeOver = schema.expand(TAKE_OVER);
    this.firstElection = schema.expand(FIRST_ELECTION);
    this.renew = schema.expand(RENEW);
    this.resign = schema.expand(RESIGN);
    this.leader = schema.expand(LEADER);
    this.pause = schema.expand(PAUSE);
    this.resume = schema.expand(RESUME);
    this.queues = schema.expand(QUEUES);
    this.paused = schema.expand(PAUSED);
    this.limitConcurrency = schema.expand(LIMIT_CONCURRENCY);
    this.limitConcurrencyPerKey = schema.expand(LIMIT_CONCURRENCY_PER_KEY);
    this.limitRate = schema.expand(LIMIT_RATE);
    this.removeRateLimit = schema.expand(REMOVE_RATE_LIMIT);
    this.limitPerKey = schema.expand(LIMIT_PER_KEY);
    this.keyFields = schema.expand(KEY_FIELDS);
    this.keyIndexChanges = schema.expand(KEY_INDEX_CHANGES);
    this.weighKey = schema.expand(WEIGH_KEY);
    this.keyWeights = schema.expand(KEY_WEIGHTS);
  }

  /** A registered node. */
  public record NodeRow(
      String id,
      String host,
      long pid,
      List<String> queues,
      String version,
      Instant startedAt,
      Instant heartbeatAt,
      boolean sessionLock) {

    /** This row, for a node that holds its session lock on its heartbeat connection. */
    public NodeRow lockingSession() {
      return new NodeRow(id, host, pid, queues, version, startedAt, heartbeatAt, true);
    }
  }

  /**
   * Whether a node's session lock is held, whether the node took it on this server (since it
   * started, and not on a standby promoted since), and the server's start time when it was read.
   */
  public record NodeLock(
      String nodeId,
      boolean held,
      boolean takenOnThisServer,
      Instant serverStartedAt,
      Instant checkedAt) {}

  /** The holder of a role. */
  public record LeaderRow(
      String role,
      String leaderId,
      long term,
      Instant electedAt,
      Instant renewedAt,
      Instant expiresAt) {}

  /** A queue, whether it is paused, and its cluster-wide concurrency limit (null: none). */
  public record QueueRow(
      String name, Instant pausedAt, String pausedBy, Integer concurrencyLimit) {}

  /** Registers (or re-registers) a node. */
  public void register(DataSource ds, NodeRow n, Instant now) {
    Db.inTransaction(
        ds,
        "cannot register node " + n.id(),
        c -> {
          try (PreparedStatement ps = c.prepareStatement(register)) {
            ps.setString(1, n.id());
            ps.setString(2, n.host());
            ps.setLong(3, n.pid());
            ps.setArray(4, c.createArrayOf("text", n.queues().toArray()));
            ps.setString(5, n.version());
            Timestamps.setInstant(ps, 6, now);
            Timestamps.setInstant(ps, 7, now);
            ps.setBoolean(8, n.sessionLock());
            return ps.executeUpdate();
          }
        });
  }

  /** Records a heartbeat of node {@code id}. Returns false if the node is not registered. */
  public boolean beat(DataSource ds, String id, Instant now) {
    return Db.inTransaction(
        ds,
        "cannot record heartbeat of node " + id,
        c -> {
          try (PreparedStatement ps = c.prepareStatement(beat)) {
            Timestamps.setInstant(ps, 1, now);
            ps.setString(2, id);
            return ps.executeUpdate() == 1;
          }
        });
  }

  /** Removes node {@code id} from the registry. */
  public void deregister(DataSource ds, String id) {
    Db.inTransaction(
        ds,
        "cannot deregister node " + id,
        c -> {
          try (PreparedStatement ps = c.prepareStatement(deregister)) {
            ps.setString(1, id);
            return ps.executeUpdate();
          }
        });
  }

  /**
   * Takes the session lock of node {@code nodeId} on {@code c}, held until the session ends, and
   * records in the node's row the server it was taken on. Returns false if another session holds it
   * (a previous process of the same node id whose session has not ended yet).
   */
  public boolean lockNode(Connection c, String nodeId) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(lockNode)) {
      ps.setString(1, lockKey(schema));
      ps.setString(2, nodeId);
      ps.setString(3, nodeId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getBoolean(1);
      }
    }
  }

  /** Gives back {@link #lockNode}'s lock on {@code c}. */
  public void unlockNode(Connection c, String nodeId) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(UNLOCK_NODE)) {
      ps.setString(1, lockKey(schema));
      ps.setString(2, nodeId);
      ps.execute();
    }
  }

  /** The session locks of the registered nodes that take one, other than {@code selfId}. */
  public List<NodeLock> nodeLocks(DataSource ds, String selfId) {
    return Db.inTransaction(
        ds,
        "cannot read the nodes' session locks",
        c -> {
          List<NodeLock> out = new ArrayList<>();
          try (PreparedStatement ps = c.prepareStatement(nodeLocks)) {
            ps.setString(1, lockKey(schema));
            ps.setString(2, selfId);
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                out.add(
                    new NodeLock(
                        rs.getString(1),
                        rs.getBoolean(2),
                        rs.getBoolean(3),
                        Timestamps.instant(rs, 4),
                        Timestamps.instant(rs, 5)));
              }
            }
          }
          return out;
        });
  }

  /** The text whose hash is the first key of every node's session lock in {@code schema}. */
  static String lockKey(SchemaName schema) {
    return "baton:" + schema.name();
  }

  /** The registered nodes, by id. */
  public List<NodeRow> nodes(DataSource ds) {
    return Db.inTransaction(
        ds,
        "cannot list nodes",
        c -> {
          List<NodeRow> out = new ArrayList<>();
          try (PreparedStatement ps = c.prepareStatement(nodes);
              ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              String[] qs = (String[]) rs.getArray(4).getArray();
              out.add(
                  new NodeRow(
                      rs.getString(1),
                      rs.getString(2),
                      rs.getLong(3),
                      List.copyOf(Arrays.asList(qs)),
                      rs.getString(5),
                      Timestamps.instant(rs, 6),
                      Timestamps.instant(rs, 7),
                      rs.getBoolean(8)));
            }
          }
          return out;
        });
  }

  /**
   * Elects {@code nodeId} to {@code role} if the role is free or its lease ran out. Returns the new
   * term, or -1 if another node holds the role.
   */
  public long elect(DataSource ds, String role, String nodeId, Duration ttl, Instant now) {
    return Db.inTransaction(
        ds,
        "cannot run election for " + role,
        c -> {
          try (PreparedStatement ps = c.prepareStatement(takeOver)) {
            ps.setString(1, nodeId);
            Timestamps.setInstant(ps, 2, now);
            Timestamps.setInstant(ps, 3, now);
            Timestamps.setInstant(ps, 4, now);
            ps.setLong(5, ttl.toMillis());
            ps.setString(6, role);
            Timestamps.setInstant(ps, 7, now);
            try (ResultSet rs = ps.executeQuery()) {
              if (rs.next()) {
                return rs.getLong(1);
              }
            }
          }
          try (PreparedStatement ps = c.prepareStatement(firstElection)) {
            ps.setString(1, role);
            ps.setString(2, nodeId);
            Timestamps.setInstant(ps, 3, now);
            Timestamps.setInstant(ps, 4, now);
            Timestamps.setInstant(ps, 5, now);
            ps.setLong(6, ttl.toMillis());
            ps.setString(7, role);
            try (ResultSet rs = ps.executeQuery()) {
              return rs.next() ? rs.getLong(1) : -1L;
            }
          }
        });
  }

  /** Extends {@code lead}'s lease by {@code ttl}. Returns false if its term is over. */
  public boolean renew(DataSource ds, Leadership lead, Duration ttl, Instant now) {
    return Db.inTransaction(
        ds,
        "cannot renew leadership of " + lead.role(),
        c -> {
          try (PreparedStatement ps = c.prepareStatement(renew)) {
            Timestamps.setInstant(ps, 1, now);
            Timestamps.setInstant(ps, 2, now);
            ps.setLong(3, ttl.toMillis());
            ps.setString(4, lead.role());
            ps.setString(5, lead.nodeId());
            ps.setLong(6, lead.term());
            Timestamps.setInstant(ps, 7, now);
            return ps.executeUpdate() == 1;
          }
        });
  }

  /** Gives up {@code lead} and notifies the cluster. Returns false if the term was already over. */
  public boolean resign(DataSource ds, Leadership lead) {
    return Db.inTransaction(
        ds,
        "cannot resign leadership of " + lead.role(),
        c -> {
          try (PreparedStatement ps = c.prepareStatement(resign)) {
            ps.setString(1, lead.role());
            ps.setString(2, lead.nodeId());
            ps.setLong(3, lead.term());
            ps.setString(4, schema.controlChannel());
            try (ResultSet rs = ps.executeQuery()) {
              rs.next();
              return rs.getLong(1) > 0;
            }
          }
        });
  }

  /** The holder of {@code role}, or null. */
  public LeaderRow leader(DataSource ds, String role) {
    return Db.inTransaction(
        ds,
        "cannot read leader of " + role,
        c -> {
          try (PreparedStatement ps = c.prepareStatement(leader)) {
            ps.setString(1, role);
            try (ResultSet rs = ps.executeQuery()) {
              if (!rs.next()) {
                return null;
              }
              return new LeaderRow(
                  rs.getString(1),
                  rs.getString(2),
                  rs.getLong(3),
                  Timestamps.instant(rs, 4),
                  Timestamps.instant(rs, 5),
                  Timestamps.instant(rs, 6));
            }
          }
        });
  }

  /** Pauses {@code queue} cluster-wide. */
  public void pause(DataSource ds, String queue, String by) {
    Db.inTransaction(
        ds,
        "cannot pause queue " + queue,
        c -> {
          try (PreparedStatement ps = c.prepareStatement(pause)) {
            ps.setString(1, queue);
            ps.setString(2, by);
            ps.setString(3, schema.controlChannel());
            try (ResultSet rs = ps.executeQuery()) {
              return rs.next();
            }
          }
        });
  }

  /** Resumes {@code queue} cluster-wide. Returns false if it was not paused. */
  public boolean resume(DataSource ds, String queue) {
    return Db.inTransaction(
        ds,
        "cannot resume queue " + queue,
        c -> {
          try (PreparedStatement ps = c.prepareStatement(resume)) {
            ps.setString(1, queue);
            ps.setString(2, schema.controlChannel());
            ps.setString(3, schema.insertChannel());
            try (ResultSet rs = ps.executeQuery()) {
              return rs.next();
            }
          }
        });
  }

  /**
   * Sets {@code queue}'s cluster-wide concurrency limit, or removes it when {@code limit} is null.
   */
  public void limitConcurrency(DataSource ds, String queue, Integer limit) {
    setLimit(
        ds, "cannot set the concurrency limit of queue " + queue, limitConcurrency, queue, limit);
  }

  /**
   * Sets {@code queue}'s concurrency limit per key (the value of {@code args ->> field}), or
   * removes it when {@code field} and {@code limit} are null.
   */
  public void limitConcurrencyPerKey(DataSource ds, String queue, String field, Integer limit) {
    setLimit(
        ds,
        "cannot set the concurrency limit per key of queue " + queue,
        limitConcurrencyPerKey,
        queue,
        field,
        limit);
  }

  /**
   * Sets {@code queue}'s rate limit to {@code limit} starts per {@code periodMillis}, per key (the
   * value of {@code args ->> keyField}) unless {@code keyField} is null; removes it when all are
   * null.
   */
  public void limitRate(
      DataSource ds, String queue, Integer limit, Integer periodMillis, String keyField) {
    setLimit(
        ds,
        "cannot set the rate limit of queue " + queue,
        limitRate,
        queue,
        limit,
        periodMillis,
        keyField);
  }

  /**
   * Removes {@code queue}'s rate limit, of the whole queue or per key, and deletes its recorded
   * starts in the same transaction.
   */
  public void removeRateLimit(DataSource ds, String queue) {
    Db.inExplicitTransaction(
        ds,
        "cannot remove the rate limit of queue " + queue,
        c -> {
          setLimit(c, limitRate, queue, null, null, null);
          try (PreparedStatement ps = c.prepareStatement(removeRateLimit)) {
            ps.setString(1, queue);
            return ps.executeUpdate();
          }
        });
  }

  /**
   * A queue's concurrency limit and rate limit per key, on one args field.
   *
   * @param field the args field whose value is the key
   * @param keyLimit the most jobs of one key running at once
   * @param rateLimit the most starts of one key per period
   * @param periodMillis the rate's window
   */
  public record KeyLimits(String field, int keyLimit, int rateLimit, int periodMillis) {}

  /** Sets {@code queue}'s concurrency limit and rate limit per key together, in one statement. */
  public void limitPerKey(DataSource ds, String queue, KeyLimits limits) {
    setLimit(
        ds,
        "cannot set the limits per key of queue " + queue,
        limitPerKey,
        queue,
        limits.field(),
        limits.keyLimit(),
        limits.rateLimit(),
        limits.periodMillis(),
        limits.field());
  }

  /**
   * The args fields of {@code queue}'s concurrency limit per key and rate limit per key, in that
   * order; null for one not set (both null for a queue without a row).
   */
  public String[] keyFields(DataSource ds, String queue) {
    return Db.inTransaction(
        ds,
        "cannot read the limits of queue " + queue,
        c -> {
          try (PreparedStatement ps = c.prepareStatement(keyFields)) {
            ps.setString(1, queue);
            try (ResultSet rs = ps.executeQuery()) {
              return rs.next()
                  ? new String[] {rs.getString(1), rs.getString(2)}
                  : new String[] {null, null};
            }
          }
        });
  }

  /** Sets {@code key}'s weight in {@code queue}'s fair share; 1 removes it (the default). */
  public void weighKey(DataSource ds, String queue, String key, int weight) {
    Db.inTransaction(
        ds,
        "cannot set the weight of key " + key + " of queue " + queue,
        c -> {
          try (PreparedStatement ps = c.prepareStatement(weighKey)) {
            ps.setString(1, queue);
            ps.setInt(2, weight);
            ps.setString(3, key);
            ps.setInt(4, weight);
            ps.setString(5, key);
            return ps.executeUpdate();
          }
        });
  }

  /** The weights of {@code queue}'s keys as a JSON object's text, or null when none is set. */
  public String keyWeights(DataSource ds, String queue) {
    return Db.inTransaction(
        ds,
        "cannot read the key weights of queue " + queue,
        c -> {
          try (PreparedStatement ps = c.prepareStatement(keyWeights)) {
            ps.setString(1, queue);
            try (ResultSet rs = ps.executeQuery()) {
              return rs.next() ? rs.getString(1) : null;
            }
          }
        });
  }

  /**
   * Brings the key indexes in line with the queues limited per key: makes each missing one and
   * drops each no queue needs, one statement at a time in autocommit ({@code CREATE} and {@code
   * DROP INDEX CONCURRENTLY} take no lock that stops writes, and cannot run in a transaction).
   * Returns a sentence for each index it could not make or drop, or found not valid; the keyed
   * claim of its queue ranks the whole backlog meanwhile (slower, never wrong).
   */
  public List<String> syncKeyIndexes(DataSource ds) {
    List<String[]> changes =
        Db.inTransaction(
            ds,
            "cannot read the key indexes",
            c -> {
              List<String[]> rows = new ArrayList<>();
              try (PreparedStatement ps = c.prepareStatement(keyIndexChanges);
                  ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                  rows.add(new String[] {rs.getString(1), rs.getString(2), rs.getString(3)});
                }
              }
              return rows;
            });
    List<String> problems = new ArrayList<>();
    for (String[] change : changes) {
      String action = change[0];
      String index = change[1];
      String ddl = change[2];
      if (ddl == null) {
        problems.add(
            "key index "
                + index
                + " is not valid (a build failed or is under way): the keyed claim of its queue"
                + " ranks the queue's whole backlog until it is; drop it, then set the limit again");
        continue;
      }
      try (Connection c = ds.getConnection()) {
        c.setAutoCommit(true);
        try (java.sql.Statement st = c.createStatement()) {
          st.execute(ddl);
        }
      } catch (SQLException e) {
        problems.add(
            "cannot "
                + action
                + " key index "
                + index
                + " ("
                + e.getMessage()
                + ("create".equals(action)
                    ? "): the keyed claim of its queue ranks the queue's whole backlog until the"
                        + " table's owner runs: "
                        + ddl
                    : "): it costs its queue's inserts an index entry until the table's owner"
                        + " runs: "
                        + ddl));
      }
    }
    return problems;
  }

  /**
   * Runs {@code sql}, a statement that sets a limit and ends in LIMITED_ANSWER: binds {@code
   * values} in order (a String as text, an Integer as int, a null as a text NULL, which the
   * statement casts where it needs an int), then the channels.
   */
  private void setLimit(DataSource ds, String what, String sql, Object... values) {
    Db.inTransaction(ds, what, c -> setLimit(c, sql, values));
  }

  private boolean setLimit(Connection c, String sql, Object... values) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      int i = 1;
      for (Object v : values) {
        if (v == null) {
          ps.setNull(i++, java.sql.Types.VARCHAR);
        } else if (v instanceof Integer n) {
          ps.setInt(i++, n);
        } else {
          ps.setString(i++, (String) v);
        }
      }
      ps.setString(i++, schema.controlChannel());
      ps.setString(i, schema.insertChannel());
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  /** Whether {@code queue} is paused. */
  public boolean paused(DataSource ds, String queue) {
    return Db.inTransaction(
        ds,
        "cannot read queue " + queue,
        c -> {
          try (PreparedStatement ps = c.prepareStatement(paused)) {
            ps.setString(1, queue);
            try (ResultSet rs = ps.executeQuery()) {
              return rs.next() && rs.getBoolean(1);
            }
          }
        });
  }

  /** Every known queue. */
  public List<QueueRow> queues(DataSource ds) {
    return Db.inTransaction(
        ds,
        "cannot list queues",
        c -> {
          List<QueueRow> out = new ArrayList<>();
          try (PreparedStatement ps = c.prepareStatement(queues);
              ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              out.add(
                  new QueueRow(
                      rs.getString(1),
                      Timestamps.instant(rs, 2),
                      rs.getString(3),
                      (Integer) rs.getObject(4)));
            }
          }
          return out;
        });
  }
}
