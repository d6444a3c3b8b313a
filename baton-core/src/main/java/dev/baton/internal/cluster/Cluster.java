package dev.baton.internal.cluster;

import dev.baton.internal.db.Leadership;
import dev.baton.internal.db.NotLeaderException;
import dev.baton.internal.maintenance.MaintenanceService;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's part in the cluster: its registry row, its candidacy for leader, and the maintenance
 * services it runs while it leads.
 *
 * <p>Two threads. {@code baton-cluster} runs the election step every third of the leader TTL
 * (jittered), at once when the leader resigns, and this node's registry heartbeat. {@code
 * baton-maintenance} runs each service at its own interval, and only while {@link
 * Elector#current()} says this node leads within its trust window; a service that finds its term
 * over ({@link NotLeaderException}) makes the elector drop the role. Neither thread holds a lock
 * while it talks to the database. A failed step is logged and retried at its next interval.
 *
 * <p>Start and stop may be called from any thread, in any order, any number of times: a stopped
 * cluster cannot start again. Both run whole under one lock, database calls included, so they never
 * interleave; nothing else takes it. Not public API.
 */
public final class Cluster implements dev.baton.internal.Service {
  private static final Logger log = LoggerFactory.getLogger(Cluster.class);

  /** A service and the interval between its passes. */
  public record Periodic(MaintenanceService service, Duration interval) {}

  private enum State {
    NEW,
    RUNNING,
    STOPPED
  }

  private final Elector elector; // null: this node never leads
  private final NodeRegistry registry;
  private final Duration nodeBeatInterval;
  private final List<Periodic> services;
  private final ReentrantLock lock = new ReentrantLock();
  private State state = State.NEW;
  private volatile dev.baton.internal.Outage outage = new dev.baton.internal.Outage();
  private volatile ScheduledThreadPoolExecutor clusterThread;
  private volatile ScheduledThreadPoolExecutor maintenanceThread;

  /** A cluster member; {@code elector} null for a node that never leads. */
  public Cluster(
      Elector elector, NodeRegistry registry, Duration nodeBeatInterval, List<Periodic> services) {
    this.elector = elector;
    this.registry = registry;
    this.nodeBeatInterval = nodeBeatInterval;
    this.services = List.copyOf(services);
  }

  /**
   * Reports connection losses to {@code outage}, shared with the client's other services, so an
   * outage is logged once; call before {@link #start()}. Returns this.
   */
  @Override
  public Cluster reportingTo(dev.baton.internal.Outage outage) {
    this.outage = outage;
    return this;
  }

  /**
   * Starts the threads, registers this node and runs one election step before returning (so a lone
   * node leads at once). Database errors are logged, not thrown: the threads retry. Does nothing if
   * started or stopped before.
   */
  @Override
  public void start() {
    // The whole start runs under the lock (a stop waits for it): a stop that slipped in between
    // would deregister before the registration, or drop the first election step's task.
    lock.lock();
    try {
      if (state != State.NEW) {
        return;
      }
      state = State.RUNNING;
      clusterThread = executor("baton-cluster");
      maintenanceThread = executor("baton-maintenance");
      guarded("register node", registry::register);
      clusterThread.scheduleWithFixedDelay(
          () -> guarded("node heartbeat", registry::beat),
          nodeBeatInterval.toMillis(),
          nodeBeatInterval.toMillis(),
          TimeUnit.MILLISECONDS);
      if (elector == null) {
        return;
      }
      clusterThread.schedule(
          this::electAndReschedule, elector.interval().toMillis(), TimeUnit.MILLISECONDS);
      for (Periodic p : services) {
        long ms = p.interval().toMillis();
        maintenanceThread.scheduleWithFixedDelay(
            () -> runService(p.service()), ms, ms, TimeUnit.MILLISECONDS);
      }
      // The first step runs on the cluster thread, like every other, and is waited for, so that a
      // lone node leads as soon as it started.
      clusterThread.submit(() -> electionStep()).get(10, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      log.warn("first election step did not finish; the cluster thread goes on trying", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      lock.unlock();
    }
  }

  /** Runs an election step now (the leader resigned). Does nothing unless running. */
  public void electNow() {
    ScheduledThreadPoolExecutor t = clusterThread;
    if (elector == null || t == null) {
      return;
    }
    try {
      t.execute(() -> electionStep());
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // stopped
    }
  }

  /** Whether this node leads now (within its trust window). */
  public boolean leading() {
    return elector != null && elector.current() != null;
  }

  /** The elector, or null for a node that never leads. */
  public Elector elector() {
    return elector;
  }

  /**
   * Stops the threads (waiting up to {@code timeout} for a pass under way), resigns the role so
   * another node takes over at once, and removes this node from the registry.
   */
  @Override
  public void stop(Duration timeout) throws InterruptedException {
    lock.lock();
    try {
      if (state != State.RUNNING) {
        state = State.STOPPED;
        return;
      }
      state = State.STOPPED;
      maintenanceThread.shutdownNow();
      clusterThread.shutdownNow();
      long deadline = System.nanoTime() + timeout.toNanos();
      maintenanceThread.awaitTermination(
          Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      clusterThread.awaitTermination(
          Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      if (elector != null) {
        elector.resign();
      }
      guarded("deregister node", registry::deregister);
    } finally {
      lock.unlock();
    }
  }

  /**
   * One election step; a node that has just become leader runs every maintenance pass at once, not
   * an interval later, so the jobs of a leader that died wait no longer than they must.
   */
  private void electionStep() {
    boolean before = leading();
    guarded("election", elector::runOnce);
    if (!before && leading()) {
      try {
        maintenanceThread.execute(() -> services.forEach(p -> runService(p.service())));
      } catch (java.util.concurrent.RejectedExecutionException e) {
        // stopped
      }
    }
  }

  private void electAndReschedule() {
    electionStep();
    long base = elector.interval().toMillis();
    long jitter = Math.max(1, base / 10);
    long next = base - jitter + ThreadLocalRandom.current().nextLong(2 * jitter + 1);
    try {
      clusterThread.schedule(this::electAndReschedule, next, TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // stopped
    }
  }

  private void runService(MaintenanceService service) {
    Leadership lead = elector.current();
    if (lead == null) {
      return;
    }
    try {
      service.runOnce(lead);
      outage.answered();
    } catch (NotLeaderException e) {
      log.info("{} pass stopped: {}", service.name(), e.getMessage());
      elector.lost(lead);
    } catch (RuntimeException e) {
      if (!outage.failed("the " + service.name() + " pass", e)) {
        log.warn("{} pass failed; retrying at its next interval", service.name(), e);
      }
    }
  }

  private void guarded(String what, Runnable r) {
    try {
      r.run();
      outage.answered();
    } catch (RuntimeException e) {
      if (!outage.failed(what, e)) {
        log.warn("{} failed; retrying at its next interval", what, e);
      }
    }
  }

  private static ScheduledThreadPoolExecutor executor(String name) {
    ScheduledThreadPoolExecutor e =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, name);
              t.setDaemon(true);
              return t;
            });
    e.setRemoveOnCancelPolicy(true);
    return e;
  }
}
