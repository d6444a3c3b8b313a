package dev.baton.internal.db;

import dev.baton.internal.cluster.Leadership;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
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

  private static final String CLK = "coalesce(?::timestamptz, now())";

  // Binds: id, host, pid, queues, version, now, now.
  private static final String REGISTER =
      """
      INSERT INTO %1$s.node (id, host, pid, queues, version, started_at, heartbeat_at)
      VALUES (?, ?, ?, ?, ?, $CLK, $CLK)
      ON CONFLICT (id) DO UPDATE
      SET host = excluded.host, pid = excluded.pid, queues = excluded.queues,
          version = excluded.version, started_at = excluded.started_at,
          heartbeat_at = excluded.heartbeat_at
      """
          .replace("$CLK", CLK);

  // A node pruned while it was alive (a long pause) registers again on its next beat.
  // Binds: now, id.
  private static final String BEAT =
      "UPDATE %1$s.node SET heartbeat_at = $CLK WHERE id = ?".replace("$CLK", CLK);

  private static final String DEREGISTER = "DELETE FROM %1$s.node WHERE id = ?";

  private static final String NODES =
      "SELECT id, host, pid, queues, version, started_at, heartbeat_at FROM %1$s.node ORDER BY id";

  // Takes over an expired lease under a new term. Binds: node id, now, now, now, ttl ms, role, now.
  private static final String TAKE_OVER =
      """
      UPDATE %1$s.leader
      SET leader_id = ?, term = nextval('%1$s.leader_term_seq'), elected_at = $CLK,
          renewed_at = $CLK, expires_at = $CLK + make_interval(secs => ? / 1000.0)
      WHERE role = ? AND expires_at <= $CLK
      RETURNING term
      """
          .replace("$CLK", CLK);

  // The first election of a role. Draws a term only when there is no row, so a follower's steps
  // do not use up terms (ON CONFLICT alone would call nextval before finding the conflict).
  // Binds: role, node id, now, now, now, ttl ms, role.
  private static final String FIRST_ELECTION =
      """
      INSERT INTO %1$s.leader (role, leader_id, term, elected_at, renewed_at, expires_at)
      SELECT ?, ?, nextval('%1$s.leader_term_seq'), $CLK, $CLK,
             $CLK + make_interval(secs => ? / 1000.0)
      WHERE NOT EXISTS (SELECT 1 FROM %1$s.leader WHERE role = ?)
      ON CONFLICT (role) DO NOTHING
      RETURNING term
      """
          .replace("$CLK", CLK);

  // Extends the holder's own, unexpired term. Binds: now, now, ttl ms, role, node id, term, now.
  private static final String RENEW =
      """
      UPDATE %1$s.leader
      SET renewed_at = $CLK, expires_at = $CLK + make_interval(secs => ? / 1000.0)
      WHERE role = ? AND leader_id = ? AND term = ? AND expires_at > $CLK
      """
          .replace("$CLK", CLK);

  // Gives the role up and tells the other nodes at once. Binds: role, node id, term, channel.
  private static final String RESIGN =
      """
      WITH d AS (
        DELETE FROM %1$s.leader WHERE role = ? AND leader_id = ? AND term = ? RETURNING role
      )
      SELECT count(*), (SELECT count(*) FROM (
        SELECT pg_notify(?, json_build_object('action', 'leader_resigned', 'role', role)::text)
        FROM d) n)
      FROM d
      """;

  private static final String LEADER =
      "SELECT role, leader_id, term, elected_at, renewed_at, expires_at FROM %1$s.leader"
          + " WHERE role = ?";

  // Binds: queue, by, queue, channel, channel.
  private static final String PAUSE =
      """
      WITH up AS (
        INSERT INTO %1$s.queue (name, paused_at, paused_by) VALUES (?, now(), ?)
        ON CONFLICT (name) DO UPDATE
        SET paused_at = coalesce(%1$s.queue.paused_at, now()),
            paused_by = CASE WHEN %1$s.queue.paused_at IS NULL THEN excluded.paused_by
                             ELSE %1$s.queue.paused_by END,
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
        UPDATE %1$s.queue SET paused_at = NULL, paused_by = NULL, updated_at = now()
        WHERE name = ? AND paused_at IS NOT NULL RETURNING name
      )
      SELECT pg_notify(?, json_build_object('action', 'queue_resumed', 'queue', name)::text),
             pg_notify(?, name)
      FROM up
      """;

  // Every queue with a row, a job or a registered node working it.
  private static final String QUEUES =
      """
      SELECT n.name, q.paused_at, q.paused_by
      FROM (SELECT name FROM %1$s.queue
            UNION SELECT DISTINCT queue FROM %1$s.job
                  WHERE state IN ('available', 'running', 'scheduled', 'retryable')
            UNION SELECT DISTINCT unnest(queues) FROM %1$s.node) n
      LEFT JOIN %1$s.queue q ON q.name = n.name
      ORDER BY n.name
      """;

  private static final String PAUSED =
      "SELECT paused_at IS NOT NULL FROM %1$s.queue WHERE name = ?";

  private final SchemaName schema;
  private final String register;
  private final String beat;
  private final String deregister;
  private final String nodes;
  private final String takeOver;
  private final String firstElection;
  private final String renew;
  private final String resign;
  private final String leader;
  private final String pause;
  private final String resume;
  private final String queues;
  private final String paused;

  /** Prepares the SQL text for {@code schema}. */
  public ClusterStore(SchemaName schema) {
    this.schema = schema;
    String s = schema.quoted();
    this.register = REGISTER.formatted(s);
    this.beat = BEAT.formatted(s);
    this.deregister = DEREGISTER.formatted(s);
    this.nodes = NODES.formatted(s);
    this.takeOver = TAKE_OVER.formatted(s);
    this.firstElection = FIRST_ELECTION.formatted(s);
    this.renew = RENEW.formatted(s);
    this.resign = RESIGN.formatted(s);
    this.leader = LEADER.formatted(s);
    this.pause = PAUSE.formatted(s);
    this.resume = RESUME.formatted(s);
    this.queues = QUEUES.formatted(s);
    this.paused = PAUSED.formatted(s);
  }

  /** A registered node. */
  public record NodeRow(
      String id,
      String host,
      long pid,
      List<String> queues,
      String version,
      Instant startedAt,
      Instant heartbeatAt) {}

  /** The holder of a role. */
  public record LeaderRow(
      String role,
      String leaderId,
      long term,
      Instant electedAt,
      Instant renewedAt,
      Instant expiresAt) {}

  /** A queue and whether it is paused. */
  public record QueueRow(String name, Instant pausedAt, String pausedBy) {}

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
            JobStore.setInstant(ps, 6, now);
            JobStore.setInstant(ps, 7, now);
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
            JobStore.setInstant(ps, 1, now);
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
                      JobStore.instant(rs, 6),
                      JobStore.instant(rs, 7)));
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
            JobStore.setInstant(ps, 2, now);
            JobStore.setInstant(ps, 3, now);
            JobStore.setInstant(ps, 4, now);
            ps.setLong(5, ttl.toMillis());
            ps.setString(6, role);
            JobStore.setInstant(ps, 7, now);
            try (ResultSet rs = ps.executeQuery()) {
              if (rs.next()) {
                return rs.getLong(1);
              }
            }
          }
          try (PreparedStatement ps = c.prepareStatement(firstElection)) {
            ps.setString(1, role);
            ps.setString(2, nodeId);
            JobStore.setInstant(ps, 3, now);
            JobStore.setInstant(ps, 4, now);
            JobStore.setInstant(ps, 5, now);
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
            JobStore.setInstant(ps, 1, now);
            JobStore.setInstant(ps, 2, now);
            ps.setLong(3, ttl.toMillis());
            ps.setString(4, lead.role());
            ps.setString(5, lead.nodeId());
            ps.setLong(6, lead.term());
            JobStore.setInstant(ps, 7, now);
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
                  JobStore.instant(rs, 4),
                  JobStore.instant(rs, 5),
                  JobStore.instant(rs, 6));
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
              out.add(new QueueRow(rs.getString(1), JobStore.instant(rs, 2), rs.getString(3)));
            }
          }
          return out;
        });
  }
}
