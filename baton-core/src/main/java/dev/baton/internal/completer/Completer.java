package dev.baton.internal.completer;

import dev.baton.internal.db.Finish;
import dev.baton.internal.db.JobStore;
import dev.baton.internal.executor.HeldJobs;
import dev.baton.internal.executor.NodeCounters;
import dev.baton.internal.executor.RunningJob;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes finishes (complete, fail, snooze, cancel) in batches, each fenced on {@code (id, fence,
 * state = 'running')}.
 *
 * <p>One thread, {@code baton-completer}, takes whatever has queued up while the previous write ran
 * and writes it in one statement (group commit): no timer, so a lone finish is written at once and
 * a burst becomes one round trip. A finish that matched no row belonged to a holder that lost the
 * job: it is dropped, counted as fenced and logged once. The queue is bounded: when it is full,
 * handlers block in {@link #submit}, which slows claiming (backpressure). If the database is down,
 * the batch is retried; its jobs stay held, so heartbeats keep their leases while they can.
 *
 * <p>Not public API.
 */
public final class Completer {
  private static final Logger log = LoggerFactory.getLogger(Completer.class);
  private static final Duration RETRY_BACKOFF_MAX = Duration.ofSeconds(5);

  private record Pending(RunningJob job, Finish finish, LongAdder onWritten) {}

  private final DataSource dataSource;
  private final JobStore store;
  private final HeldJobs held;
  private final NodeCounters counters;
  private final int batchSize;
  private final BlockingQueue<Pending> queue;
  private final Thread thread;
  private volatile boolean stopping;

  /** A completer; call {@link #start()}. */
  public Completer(
      DataSource dataSource,
      JobStore store,
      HeldJobs held,
      NodeCounters counters,
      int batchSize,
      int capacity) {
    this.dataSource = dataSource;
    this.store = store;
    this.held = held;
    this.counters = counters;
    this.batchSize = batchSize;
    this.queue = new ArrayBlockingQueue<>(capacity);
    this.thread = new Thread(this::loop, "baton-completer");
    this.thread.setDaemon(true);
  }

  /** Starts the writer thread. */
  public void start() {
    thread.start();
  }

  /**
   * Queues {@code finish} of {@code job}, blocking while the queue is full; {@code onWritten} is
   * incremented once the finish is written (not when it is fenced off).
   */
  public void submit(RunningJob job, Finish finish, LongAdder onWritten)
      throws InterruptedException {
    queue.put(new Pending(job, finish, onWritten));
  }

  /** Finishes queued and not yet written. */
  public int pending() {
    return queue.size();
  }

  /** Writes everything queued, then stops the thread; waits up to {@code timeout}. */
  public void stop(Duration timeout) throws InterruptedException {
    stopping = true;
    thread.join(Math.max(1, timeout.toMillis()));
  }

  private void loop() {
    List<Pending> batch = new ArrayList<>(batchSize);
    long backoffMillis = 50;
    while (true) {
      try {
        if (batch.isEmpty()) {
          Pending first = queue.poll(50, TimeUnit.MILLISECONDS);
          if (first == null) {
            if (stopping) {
              return;
            }
            continue;
          }
          batch.add(first);
          queue.drainTo(batch, batchSize - 1);
        }
        write(batch);
        backoffMillis = 50;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        log.warn(
            "cannot write {} finished jobs; retrying in {} ms (the jobs stay running and leased)",
            batch.size(),
            backoffMillis,
            e);
        if (stopping && backoffMillis >= RETRY_BACKOFF_MAX.toMillis()) {
          log.warn(
              "giving up on {} finished jobs at stop; they will be rescued when their leases expire",
              batch.size());
          return;
        }
        try {
          Thread.sleep(backoffMillis);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          return;
        }
        backoffMillis = Math.min(backoffMillis * 2, RETRY_BACKOFF_MAX.toMillis());
      }
    }
  }

  /**
   * Writes {@code batch}, removing each part from it once written, so a failure part-way retries
   * only what was not written (a written completion retried would match no row and be miscounted
   * as fenced).
   */
  private void write(List<Pending> batch) {
    // Plain completions take a cheaper statement; write them apart from the rest.
    List<Pending> plain = new ArrayList<>(batch.size());
    List<Pending> other = new ArrayList<>();
    for (Pending p : batch) {
      (p.finish().isPlainCompletion() ? plain : other).add(p);
    }
    if (!plain.isEmpty()) {
      settle(plain, store.finishIfHeld(dataSource, finishes(plain)));
      batch.clear();
      batch.addAll(other);
    }
    if (!other.isEmpty()) {
      settle(other, store.finishIfHeld(dataSource, finishes(other)));
    }
    batch.clear();
  }

  private static List<Finish> finishes(List<Pending> pending) {
    List<Finish> out = new ArrayList<>(pending.size());
    for (Pending p : pending) {
      out.add(p.finish());
    }
    return out;
  }

  private void settle(List<Pending> pending, Set<Long> written) {
    for (Pending p : pending) {
      long id = p.job().id();
      if (written.contains(id)) {
        p.onWritten().increment();
      } else {
        counters.fenced.increment();
        log.warn(
            "dropped the result of job {} (fence {}, outcome {}): this node no longer holds it;"
                + " its lease expired or it was cancelled, and its new holder's result counts",
            id,
            p.finish().fence(),
            p.finish().state());
      }
      held.remove(p.job());
    }
  }
}
