package dev.baton.internal.producer;

import dev.baton.internal.ServiceState;
import dev.baton.internal.db.HolderStore;
import dev.baton.internal.db.PollStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fallback poll of a node, shared by all its producers: one thread, {@code baton-poller}, asks
 * every poll interval (jittered by +-10%) with one statement which of the node's queues have an
 * available job and are not paused, and wakes only their producers. The same answer says which of
 * them have a cluster-wide concurrency limit, so a producer that missed the control notification of
 * a limit set or removed claims with the statement that fits within a poll interval. An idle node
 * therefore sends one statement per interval however many queues it works; a producer waits for a
 * wake-up (NOTIFY, a local enqueue, a freed slot, or this poll) and never polls on its own.
 *
 * <p>The poll covers notifications that were lost or never sent (notifications off, a LISTEN
 * connection that broke, a NOTIFY that came before the LISTEN). A poll that fails because the
 * database is unreachable is reported to the node's {@link dev.baton.internal.Outage} (one WARN for
 * the whole outage, whichever service fails first); any other failure is logged once until a poll
 * works again. Either is tried again at the next interval; it never stops the thread.
 *
 * <p>Not public API.
 */
public final class Poller implements dev.baton.internal.Service {
  private static final Logger log = LoggerFactory.getLogger(Poller.class);

  private final DataSource dataSource;
  private final PollStore store;
  private final List<Producer> producers;
  private final List<String> queues;
  private final Duration interval;
  private final Thread thread;
  private final ServiceState state = new ServiceState();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition wake = lock.newCondition();
  private boolean pollRequested; // guarded by lock
  private volatile boolean running;
  private volatile dev.baton.internal.Outage outage = new dev.baton.internal.Outage();

  /** A poller for {@code producers}, one statement every {@code interval}; call {@link #start}. */
  public Poller(
      DataSource dataSource, PollStore store, List<Producer> producers, Duration interval) {
    this.dataSource = dataSource;
    this.store = store;
    this.producers = List.copyOf(producers);
    this.queues = this.producers.stream().map(Producer::queue).toList();
    this.interval = interval;
    this.thread = new Thread(this::loop, "baton-poller");
    this.thread.setDaemon(true);
  }

  @Override
  public Poller reportingTo(dev.baton.internal.Outage outage) {
    this.outage = outage;
    return this;
  }

  /** Starts polling; the first poll comes one interval from now. */
  @Override
  public void start() {
    state.start(
        () -> {
          running = true;
          thread.start();
        });
  }

  /** Asks for a poll now (notifications may have been missed). Cheap; safe from any thread. */
  public void pollNow() {
    lock.lock();
    try {
      pollRequested = true;
      wake.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Stops polling and waits up to {@code timeout} for the thread to end. */
  @Override
  public void stop(Duration timeout) throws InterruptedException {
    if (!state.stop(
        () -> {
          running = false;
          pollNow();
        })) {
      return;
    }
    thread.join(Math.max(1, timeout.toMillis()));
  }

  /**
   * One poll: wakes the producers of the queues with available jobs, telling each whether its queue
   * has a cluster-wide concurrency limit; returns their queues.
   */
  Set<String> pollOnce() {
    Map<String, HolderStore.ClaimMode> ready =
        store.findQueuesWithAvailableJobs(dataSource, queues);
    for (Producer p : producers) {
      HolderStore.ClaimMode mode = ready.get(p.queue());
      if (mode != null) {
        p.mode(mode);
        p.wake();
      }
    }
    return ready.keySet();
  }

  private void loop() {
    boolean failing = false;
    while (running) {
      try {
        awaitNextPoll(jittered(interval));
        if (!running) {
          return;
        }
        pollOnce();
        outage.answered();
        if (failing) {
          log.info("polling queues {} works again", queues);
          failing = false;
        }
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        if (outage.failed("polling queues " + queues, e)) {
          continue; // a lost connection: logged once for the node's whole outage
        }
        if (!failing) {
          log.warn(
              "cannot poll queues {}; trying again every {} ms", queues, interval.toMillis(), e);
          failing = true;
        }
      }
    }
  }

  private void awaitNextPoll(Duration timeout) throws InterruptedException {
    long nanos = timeout.toNanos();
    lock.lock();
    try {
      while (!pollRequested && running && nanos > 0) {
        nanos = wake.awaitNanos(nanos);
      }
      pollRequested = false;
    } finally {
      lock.unlock();
    }
  }

  private static Duration jittered(Duration d) {
    double f = 0.9 + 0.2 * ThreadLocalRandom.current().nextDouble();
    return Duration.ofNanos((long) (d.toNanos() * f));
  }
}
