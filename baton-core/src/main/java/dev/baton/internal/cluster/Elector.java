package dev.baton.internal.cluster;

import dev.baton.internal.TimeSource;
import dev.baton.internal.db.ClusterStore;
import dev.baton.internal.db.Leadership;
import java.time.Duration;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leader election for one role, by a lease row with a term.
 *
 * <p>{@link #runOnce()} is one step: a leader renews its own term (only while its lease has not run
 * out); any other node takes the role over if it is free or its lease ran out, under a new term
 * from a sequence. A node acts as leader only within a local trust window, two thirds of the TTL
 * counted on the monotonic clock from the moment its last successful renewal was <em>sent</em>: the
 * database set the lease's end at least one TTL after that moment, so the node stops acting a third
 * of a TTL before another node could be elected, whatever the network did meanwhile. Every leader
 * write is fenced by the term as well ({@link dev.baton.internal.db.MaintenanceStore}), so even a
 * leader that was frozen past its window changes nothing.
 *
 * <p>Steps run on one thread (the cluster thread); {@link #current()} may be read from any.
 *
 * <p>Not public API.
 */
public final class Elector {
  private static final Logger log = LoggerFactory.getLogger(Elector.class);

  private final DataSource dataSource;
  private final ClusterStore store;
  private final String role;
  private final String nodeId;
  private final Duration ttl;
  private final TimeSource time;
  private final long trustNanos;

  private volatile Leadership held;
  private volatile long trustedUntil;

  /** An elector of {@code nodeId} for {@code role} with a lease of {@code ttl}. */
  public Elector(
      DataSource dataSource,
      ClusterStore store,
      String role,
      String nodeId,
      Duration ttl,
      TimeSource time) {
    this.dataSource = dataSource;
    this.store = store;
    this.role = role;
    this.nodeId = nodeId;
    this.ttl = ttl;
    this.time = time;
    this.trustNanos = ttl.toNanos() * 2 / 3;
  }

  /** The interval between steps: a third of the TTL. */
  public Duration interval() {
    return ttl.dividedBy(3);
  }

  /**
   * One election step. Returns the leadership this node may act on after it, or null.
   *
   * @throws dev.baton.BatonException if the database cannot be reached (the trust window then runs
   *     out on its own)
   */
  public Leadership runOnce() {
    Leadership lead = held;
    long sent = time.nanoTime();
    if (lead != null) {
      if (store.renew(dataSource, lead, ttl, time.dbNow())) {
        trustedUntil = sent + trustNanos;
        return current();
      }
      drop(lead, "its lease ran out or another node was elected");
    }
    long term = store.elect(dataSource, role, nodeId, ttl, time.dbNow());
    if (term < 0) {
      return null;
    }
    Leadership won = new Leadership(role, nodeId, term);
    trustedUntil = sent + trustNanos;
    held = won;
    log.info("node {} elected leader of {} (term {})", nodeId, role, term);
    return current();
  }

  /**
   * The leadership this node may act on now: held, and within its trust window. Null when not
   * leading.
   */
  public Leadership current() {
    Leadership lead = held;
    if (lead == null || time.nanoTime() - trustedUntil >= 0) {
      return null;
    }
    return lead;
  }

  /** Whether this node believes it holds the role (even past its trust window). */
  public boolean holds() {
    return held != null;
  }

  /** A leader write found {@code lead}'s term over: stop acting on it. */
  public void lost(Leadership lead) {
    drop(lead, "a fenced write found its term over");
  }

  /**
   * Gives the role up, if held, and notifies the other nodes so one of them takes over at once.
   * Errors are logged: the lease then simply runs out.
   */
  public void resign() {
    Leadership lead = held;
    if (lead == null) {
      return;
    }
    held = null;
    try {
      if (store.resign(dataSource, lead)) {
        log.info("node {} resigned as leader of {} (term {})", nodeId, role, lead.term());
      }
    } catch (RuntimeException e) {
      log.warn(
          "node {} could not resign as leader of {}; the lease runs out in at most {}",
          nodeId,
          role,
          ttl,
          e);
    }
  }

  private void drop(Leadership lead, String why) {
    if (held != null && held.equals(lead)) {
      held = null;
      log.info("node {} is no longer leader of {} (term {}): {}", nodeId, role, lead.term(), why);
    }
  }
}
