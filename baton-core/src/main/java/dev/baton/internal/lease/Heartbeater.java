package dev.baton.internal.lease;

import dev.baton.BatonException;
import dev.baton.internal.db.ClusterStore;
import dev.baton.internal.db.Db;
import dev.baton.internal.db.HolderStore;
import dev.baton.internal.held.HeldJobs;
import dev.baton.internal.held.NodeCounters;
import dev.baton.internal.held.RunningJob;
import dev.baton.internal.held.StopReason;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Extends the leases of every job this node holds, in one statement per beat, and finds the jobs it
 * lost.
 *
 * <p>One thread, {@code baton-heartbeater}, beats every heartbeat interval (a third of the lease by
 * default). Each lease is matched on {@code (id, fence, running)}; a held job missing from the
 * result was lost (rescued after a stall, or cancelled and finalized): its handler is interrupted
 * and its result will be dropped. A beat also carries cancel requests, for nodes that missed the
 * NOTIFY.
 *
 * <p>A second thread, {@code baton-lease-guard}, checks the trust window of every held job on a
 * timer of its own: a job whose last confirmed lease ends within the {@linkplain #safetyMargin
 * safety margin} is interrupted as lost, since another node may run it once the lease has run out.
 * It does not depend on the beats returning or throwing, so a beat blocked on a connection that
 * stopped answering cannot keep handlers running past their lease. The pinned connection carries a
 * network timeout and a {@code statement_timeout} of one heartbeat interval, so such a beat fails
 * and the next one takes a fresh connection: the node recovers on its own when the database answers
 * again.
 *
 * <p>The thread keeps one connection of the pool for the client's life (taken when it starts,
 * before any handler runs; taken again after an error), so handlers that exhaust the pool cannot
 * starve the beats: if they could, leases would run out under running handlers and other nodes
 * would run their jobs again.
 *
 * <p>Not public API.
 */
public final class Heartbeater implements dev.baton.internal.Service {
  private static final Logger log = LoggerFactory.getLogger(Heartbeater.class);

  private final DataSource dataSource;
  private final HolderStore store;
  private final HeldJobs held;
  private final NodeCounters counters;
  private final Duration lease;
  private final Duration interval;
  private final Duration margin;
  private final NodeLock nodeLock; // null: takes no session lock
  private volatile dev.baton.internal.Outage outage = new dev.baton.internal.Outage();
  private final Thread thread;
  private final Thread guard;
  private final dev.baton.internal.ServiceState state = new dev.baton.internal.ServiceState();
  private volatile boolean running;
  private Connection pinned; // the heartbeater thread's own
  private long failingSinceNanos; // heartbeater thread only; 0 while beats succeed
  private boolean locked; // whether the pinned connection holds the node's session lock

  /**
   * The node's session lock, which the heartbeater holds on its connection so that the leader can
   * tell that the node is gone when that session ends.
   */
  public record NodeLock(ClusterStore store, String nodeId) {}

  /**
   * How a heartbeater beats.
   *
   * @param lease how long each beat extends a held job's lease
   * @param interval the time between beats
   * @param nodeLock the node's session lock to hold on the heartbeat connection; null: none
   */
  public record Settings(Duration lease, Duration interval, NodeLock nodeLock) {

    /** Beats every {@code interval}, extending leases by {@code lease}, holding no session lock. */
    public Settings(Duration lease, Duration interval) {
      this(lease, interval, null);
    }
  }

  /** A heartbeater; call {@link #start()}. */
  public Heartbeater(
      DataSource dataSource,
      HolderStore store,
      HeldJobs held,
      NodeCounters counters,
      Settings settings) {
    Duration lease = settings.lease();
    Duration interval = settings.interval();
    this.nodeLock = settings.nodeLock();
    this.dataSource = dataSource;
    this.store = store;
    this.held = held;
    this.counters = counters;
    this.lease = lease;
    this.interval = interval;
    this.margin = safetyMargin(lease, interval);
    this.thread = new Thread(this::loop, "baton-heartbeater");
    this.thread.setDaemon(true);
    this.guard = new Thread(this::guardLoop, "baton-lease-guard");
    this.guard.setDaemon(true);
  }

  /**
   * How long before the end of a job's last confirmed lease its handler is interrupted when no
   * later extension was confirmed: a quarter of the slack between the heartbeat interval and the
   * lease ({@code (lease - interval) / 4}; 5 s for the default 30 s lease), so that a beat that is
   * merely slow never stops a handler, and a node cut off from the database stops its handlers
   * before another node can claim their jobs.
   */
  public static Duration safetyMargin(Duration lease, Duration interval) {
    return lease.minus(interval).dividedBy(4);
  }

  @Override
  public Heartbeater reportingTo(dev.baton.internal.Outage outage) {
    this.outage = outage;
    return this;
  }

  /** Starts beating. */
  @Override
  public void start() {
    state.start(
        () -> {
          running = true;
          thread.start();
          guard.start();
        });
  }

  /** Stops beating and waits up to {@code timeout} for the thread to end. */
  @Override
  public void stop(Duration timeout) throws InterruptedException {
    if (!state.stop(() -> running = false)) {
      return;
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    guard.interrupt();
    thread.interrupt();
    thread.join(Math.max(1, timeout.toMillis()));
    guard.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
  }

  private void loop() {
    // Take the connection before any handler can: handlers that exhaust the pool must not stop
    // the beats, or leases run out under running handlers and other nodes run their jobs again.
    pin();
    try {
      lockNode();
    } catch (RuntimeException e) {
      log.debug("cannot take the session lock yet; retrying at the next beat", e);
    }
    try {
      long pause = interval.toNanos();
      while (running) {
        try {
          TimeUnit.NANOSECONDS.sleep(pause);
        } catch (InterruptedException e) {
          if (!running) {
            return;
          }
        }
        try {
          lockNode();
          beatOnce();
          outage.answered();
          pause = interval.toNanos();
          if (failingSinceNanos != 0) {
            log.info(
                "leases extended again after {} ms of failed heartbeats",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - failingSinceNanos));
            failingSinceNanos = 0;
          }
        } catch (RuntimeException e) {
          // A failed beat is retried soon on a fresh connection, not a whole interval later: the
          // leases it could not extend run out meanwhile.
          pause = Math.min(interval.toNanos() / 4, TimeUnit.MILLISECONDS.toNanos(500));
          if (outage.failed("extending the leases of " + held.size() + " held jobs", e)) {
            continue; // logged once for the whole outage
          }
          if (failingSinceNanos == 0) {
            failingSinceNanos = System.nanoTime();
            log.warn(
                "cannot extend the leases of {} held jobs; retrying every {} ms: {}",
                held.size(),
                TimeUnit.NANOSECONDS.toMillis(pause),
                e.getMessage());
          } else {
            log.debug("heartbeat failed again", e);
          }
        }
      }
    } finally {
      unpin();
    }
  }

  private void guardLoop() {
    // Often enough that a handler is interrupted well within the safety margin.
    long tick =
        Math.max(TimeUnit.MILLISECONDS.toNanos(10), Math.min(margin.toNanos(), 250_000_000L));
    while (running) {
      try {
        TimeUnit.NANOSECONDS.sleep(tick);
      } catch (InterruptedException e) {
        if (!running) {
          return;
        }
      }
      stopJobsPastTrustWindow();
    }
  }

  /**
   * Takes the node's session lock on the heartbeat connection unless it holds it, also when no job
   * is held (the leader judges the node by it as soon as it holds one).
   */
  private void lockNode() {
    if (nodeLock == null || (locked && pinned != null)) {
      return;
    }
    Connection c = pin();
    if (c == null) {
      throw new BatonException("no heartbeat connection: the pool gave none");
    }
    try {
      locked = nodeLock.store().lockNode(c, nodeLock.nodeId());
      if (!locked) {
        log.debug(
            "session lock of node {} is held by another session; retrying", nodeLock.nodeId());
      }
    } catch (SQLException e) {
      unpin();
      throw Db.wrap("cannot take the session lock of node " + nodeLock.nodeId(), e);
    }
  }

  /** Borrows the heartbeat connection if it has none; logs and leaves it to the next beat. */
  private Connection pin() {
    if (pinned == null) {
      try {
        Connection c = dataSource.getConnection();
        try {
          if (!c.getAutoCommit()) {
            c.setAutoCommit(true);
          }
          Db.bound(c, interval, interval.multipliedBy(3).dividedBy(4));
        } catch (SQLException e) {
          c.close();
          throw e;
        }
        pinned = c;
      } catch (SQLException e) {
        log.debug("cannot take the heartbeat connection; retrying at the next beat", e);
      }
    }
    return pinned;
  }

  /** Gives the heartbeat connection back to the pool (a broken one is discarded by the pool). */
  private void unpin() {
    Connection c = pinned;
    pinned = null;
    boolean wasLocked = locked;
    locked = false;
    if (c != null) {
      try {
        if (wasLocked && !c.isClosed()) {
          nodeLock.store().unlockNode(c, nodeLock.nodeId());
        }
      } catch (SQLException e) {
        log.debug("giving back the session lock failed; the pool discards the connection", e);
      }
      try {
        Db.unbound(c);
        c.close();
      } catch (SQLException e) {
        log.debug("closing the heartbeat connection failed", e);
      }
    }
  }

  /** Extends every held lease once. Public for tests. */
  public void beatOnce() {
    List<RunningJob> jobs = held.snapshot();
    if (jobs.isEmpty()) {
      return;
    }
    long[] ids = new long[jobs.size()];
    long[] fences = new long[jobs.size()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = jobs.get(i).id();
      fences[i] = jobs.get(i).fence();
    }
    long sentAt = System.nanoTime();
    HolderStore.Heartbeat beat;
    if (Thread.currentThread() != thread) {
      beat = store.heartbeatIfHeld(dataSource, ids, fences, lease); // a test's direct call
    } else {
      Connection c = pin();
      if (c == null) {
        throw new BatonException("no heartbeat connection: the pool gave none");
      }
      try {
        beat = store.heartbeatIfHeld(c, ids, fences, lease);
      } catch (SQLException e) {
        unpin(); // take a fresh one at the next beat
        throw Db.wrap("cannot extend leases (" + ids.length + " jobs)", e);
      }
    }
    long knownUntil = sentAt + lease.toNanos();
    for (RunningJob rj : jobs) {
      if (beat.held(rj.id())) {
        if (beat.extended().contains(rj.id())) {
          rj.leaseKnownUntilNanos(knownUntil);
        }
        if (beat.cancelRequested().contains(rj.id())) {
          rj.stop(StopReason.CANCELLED);
        }
      } else if (!rj.handlerDone()
          && !rj.completedInTransaction()
          && rj.stopReason() != StopReason.LOST
          && held.get(rj.id()) == rj) {
        // Still running here but no longer ours in the table. A job whose handler is done is left
        // to the completer, whose fenced write tells the same story; one the handler completed in
        // its own transaction is checked by the executor when the handler returns.
        counters.leasesLost.increment();
        log.warn(
            "lost job {} (fence {}): it is no longer running under this node's fence; interrupting"
                + " its handler",
            rj.id(),
            rj.fence());
        rj.stop(StopReason.LOST);
      }
    }
  }

  /**
   * Interrupts, as lost, every running handler whose last confirmed lease ends within the safety
   * margin. Public for tests.
   */
  public void stopJobsPastTrustWindow() {
    long now = System.nanoTime();
    List<RunningJob> past = new ArrayList<>();
    long latest = Long.MIN_VALUE;
    for (RunningJob rj : held.snapshot()) {
      if (!rj.handlerDone()
          && now - (rj.leaseKnownUntilNanos() - margin.toNanos()) >= 0
          && rj.stopReason() != StopReason.LOST) {
        past.add(rj);
        latest = Math.max(latest, rj.leaseKnownUntilNanos());
      }
    }
    if (past.isEmpty()) {
      return;
    }
    // One line for the lot: a node cut off from its database loses all its jobs at once.
    log.warn(
        "cannot prove the leases of {} jobs {}: the last confirmed one ends in {} ms (lease {},"
            + " safety margin {}) and no heartbeat got through since; interrupting their handlers,"
            + " as another node may run these jobs once their leases run out",
        past.size(),
        past.stream().map(RunningJob::id).toList(),
        TimeUnit.NANOSECONDS.toMillis(latest - now),
        lease,
        margin);
    for (RunningJob rj : past) {
      counters.leasesLost.increment();
      rj.stop(StopReason.LOST);
    }
  }
}
