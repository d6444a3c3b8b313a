package dev.baton.internal.lease;

import dev.baton.BatonException;
import dev.baton.internal.db.Db;
import dev.baton.internal.db.HolderStore;
import dev.baton.internal.executor.HeldJobs;
import dev.baton.internal.executor.NodeCounters;
import dev.baton.internal.executor.RunningJob;
import dev.baton.internal.executor.StopReason;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
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
 * NOTIFY. When beats fail (database unreachable), a handler whose lease can no longer be known to
 * hold is interrupted as lost: another node may already be running its job.
 *
 * <p>The thread keeps one connection of the pool for the client's life (taken when it starts,
 * before any handler runs; taken again after an error), so handlers that exhaust the pool cannot
 * starve the beats: if they could, leases would run out under running handlers and other nodes
 * would run their jobs again.
 *
 * <p>Not public API.
 */
public final class Heartbeater {
  private static final Logger log = LoggerFactory.getLogger(Heartbeater.class);

  private final DataSource dataSource;
  private final HolderStore store;
  private final HeldJobs held;
  private final NodeCounters counters;
  private final Duration lease;
  private final Duration interval;
  private final Thread thread;
  private final dev.baton.internal.ServiceState state = new dev.baton.internal.ServiceState();
  private volatile boolean running;
  private Connection pinned; // the heartbeater thread's own

  /** A heartbeater; call {@link #start()}. */
  public Heartbeater(
      DataSource dataSource,
      HolderStore store,
      HeldJobs held,
      NodeCounters counters,
      Duration lease,
      Duration interval) {
    this.dataSource = dataSource;
    this.store = store;
    this.held = held;
    this.counters = counters;
    this.lease = lease;
    this.interval = interval;
    this.thread = new Thread(this::loop, "baton-heartbeater");
    this.thread.setDaemon(true);
  }

  /** Starts beating. */
  public void start() {
    state.start(
        () -> {
          running = true;
          thread.start();
        });
  }

  /** Stops beating and waits up to {@code timeout} for the thread to end. */
  public void stop(Duration timeout) throws InterruptedException {
    if (!state.stop(() -> running = false)) {
      return;
    }
    thread.interrupt();
    thread.join(Math.max(1, timeout.toMillis()));
  }

  private void loop() {
    // Take the connection before any handler can: handlers that exhaust the pool must not stop
    // the beats, or leases run out under running handlers and other nodes run their jobs again.
    pin();
    try {
      while (running) {
        try {
          TimeUnit.NANOSECONDS.sleep(interval.toNanos());
        } catch (InterruptedException e) {
          if (!running) {
            return;
          }
        }
        try {
          beatOnce();
        } catch (RuntimeException e) {
          log.warn("cannot extend leases of {} held jobs; retrying next beat", held.size(), e);
          stopJobsPastKnownLease();
        }
      }
    } finally {
      unpin();
    }
  }

  /** Borrows the heartbeat connection if it has none; logs and leaves it to the next beat. */
  private Connection pin() {
    if (pinned == null) {
      try {
        Connection c = dataSource.getConnection();
        if (!c.getAutoCommit()) {
          c.setAutoCommit(true);
        }
        pinned = c;
      } catch (SQLException e) {
        log.warn("cannot take the heartbeat connection; retrying at the next beat", e);
      }
    }
    return pinned;
  }

  /** Gives the heartbeat connection back to the pool (a broken one is discarded by the pool). */
  private void unpin() {
    Connection c = pinned;
    pinned = null;
    if (c != null) {
      try {
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

  private void stopJobsPastKnownLease() {
    long now = System.nanoTime();
    for (RunningJob rj : held.snapshot()) {
      if (!rj.handlerDone()
          && now - rj.leaseKnownUntilNanos() > 0
          && rj.stopReason() != StopReason.LOST) {
        counters.leasesLost.increment();
        log.warn(
            "job {} (fence {}): its lease ran out while heartbeats failed; interrupting its handler,"
                + " as another node may run it now",
            rj.id(),
            rj.fence());
        rj.stop(StopReason.LOST);
      }
    }
  }
}
