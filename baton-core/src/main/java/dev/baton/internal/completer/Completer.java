package dev.baton.internal.completer;

import dev.baton.internal.db.Finish;
import dev.baton.internal.db.HolderStore;
import dev.baton.internal.held.FinishQueue;
import dev.baton.internal.held.HeldJobs;
import dev.baton.internal.held.NodeCounters;
import dev.baton.internal.held.RunningJob;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes finishes (complete, fail, snooze, cancel) in batches, each fenced on {@code (id, fence,
 * state = 'running')}.
 *
 * <p>Plain completions wait up to the flush delay for a producer to take them into its next claim
 * ({@link #takeCompletions}), so that completing one batch and claiming the next cost one commit;
 * whatever no producer took by then (the queue is drained, or its slots are full) the completer
 * thread, {@code baton-completer}, writes on its own, as soon as a batch is full or the oldest has
 * waited the delay. Other finishes are written at once. A finish that matched no row belonged to a
 * holder that lost the job: it is dropped, counted as fenced and logged once.
 *
 * <p>A write that failed without an answer (the connection broke) may still have committed, its
 * reply lost. Its finishes are retried as such ({@link HolderStore#finishRetriedIfHeld}): one that
 * matches no running row but finds its own outcome under its own fence was written by the earlier
 * try and counts as written, not as fenced.
 *
 * <p>Both queues are bounded: when one is full, handlers block in {@link #submit}, which slows
 * claiming (backpressure). If the database is down, a batch is retried; its jobs stay held, so
 * heartbeats keep their leases while they can.
 *
 * <p>Not public API.
 */
public final class Completer implements FinishQueue, dev.baton.internal.Service {
  private static final Logger log = LoggerFactory.getLogger(Completer.class);
  // At most a second between retries, so finishes are written soon after the database is back.
  private static final Duration RETRY_BACKOFF_MAX = Duration.ofSeconds(1);
  private static final long IDLE_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
  // How long a completion of a limited queue's job waits for its producer's next claim to carry
  // it. That claim comes at once unless the producer is failing: written apart, the completion
  // would cost the queue a commit of its own while its claims take turns on its row.
  private static final long LIMITED_HOLD_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  /**
   * A finish waiting to be written, with the counter to bump once it is; {@code retried} when an
   * earlier try to write it failed without an answer, so it may be written already.
   */
  public record Pending(
      RunningJob job, Finish finish, LongAdder onWritten, long queuedAtNanos, boolean retried) {

    /** This finish, marked as one whose earlier try may have been written. */
    Pending asRetried() {
      return retried ? this : new Pending(job, finish, onWritten, queuedAtNanos, true);
    }
  }

  private final DataSource dataSource;
  private final HolderStore store;
  private final HeldJobs held;
  private final NodeCounters counters;
  private final int batchSize;
  private final long flushDelayNanos;
  private final BlockingQueue<Pending> completions;
  private final BlockingQueue<Pending> others;
  private final ConcurrentLinkedQueue<Pending> retries = new ConcurrentLinkedQueue<>();
  private final Thread thread;
  private final dev.baton.internal.ServiceState state = new dev.baton.internal.ServiceState();
  private volatile boolean stopping;
  private volatile dev.baton.internal.Outage outage = new dev.baton.internal.Outage();
  private volatile boolean idle; // the thread is (about to be) parked: a submit must unpark it
  // Run after the thread wrote finishes on its own (not taken into a claim): a limited queue's
  // producer claims again, since those jobs no longer count toward its limit.
  private volatile Runnable afterOwnWrite = () -> {};
  // Whether a queue's producer claims again at each of its jobs' ends (a queue with a cluster-wide
  // limit): its completions wait up to LIMITED_HOLD for that claim to carry them.
  private volatile java.util.function.Predicate<String> claimsAtEachEnd = q -> false;

  /**
   * How a completer batches.
   *
   * @param batchSize the most finishes one statement writes
   * @param capacity the most completions, and the most other finishes, waiting to be written; a
   *     submit beyond it waits
   * @param flushDelay how long a short batch waits for more finishes before it is written
   */
  public record Settings(int batchSize, int capacity, Duration flushDelay) {}

  /** A completer; call {@link #start()}. */
  public Completer(
      DataSource dataSource,
      HolderStore store,
      HeldJobs held,
      NodeCounters counters,
      Settings settings) {
    this.dataSource = dataSource;
    this.store = store;
    this.held = held;
    this.counters = counters;
    this.batchSize = settings.batchSize();
    this.flushDelayNanos = settings.flushDelay().toNanos();
    this.completions = new ArrayBlockingQueue<>(settings.capacity());
    this.others = new ArrayBlockingQueue<>(settings.capacity());
    this.thread = new Thread(this::loop, "baton-completer");
    this.thread.setDaemon(true);
  }

  /**
   * Reports connection losses to {@code outage}, shared with the client's other services, so an
   * outage is logged once; call before {@link #start()}. Returns this.
   */
  @Override
  public Completer reportingTo(dev.baton.internal.Outage outage) {
    this.outage = outage;
    return this;
  }

  /**
   * Runs {@code r} after each batch this completer's thread writes on its own (finishes no producer
   * took into a claim); call before {@link #start()}. Returns this.
   */
  public Completer afterOwnWrite(Runnable r) {
    this.afterOwnWrite = r;
    return this;
  }

  /**
   * Says which queues' producers claim again at each of their jobs' ends, carrying the completions
   * waiting (queues with a cluster-wide limit): their completions wait longer than the flush delay
   * for that claim. Safe from any thread. Returns this.
   */
  public Completer claimsAtEachEnd(java.util.function.Predicate<String> queues) {
    this.claimsAtEachEnd = queues;
    return this;
  }

  /** How long completion {@code p} waits for a producer's claim to carry it. */
  private long delayOf(Pending p) {
    return claimsAtEachEnd.test(p.job().job().queue())
        ? Math.max(flushDelayNanos, LIMITED_HOLD_NANOS)
        : flushDelayNanos;
  }

  /** Starts the writer thread. */
  @Override
  public void start() {
    state.start(thread::start);
  }

  @Override
  public void submit(RunningJob job, Finish finish, LongAdder onWritten)
      throws InterruptedException {
    Pending p = new Pending(job, finish, onWritten, System.nanoTime(), false);
    if (finish.isPlainCompletion()) {
      completions.put(p);
      if (idle || completions.size() >= batchSize) {
        LockSupport.unpark(thread); // start the delay clock, or flush a full batch
      }
    } else {
      others.put(p);
      LockSupport.unpark(thread);
    }
  }

  /**
   * Takes up to {@code max} plain completions for a producer to write with its next claim. The
   * producer must hand them to {@link #settle} with what was written, or back to {@link #requeue}.
   */
  public List<Pending> takeCompletions(int max) {
    if (completions.isEmpty()) {
      return List.of();
    }
    List<Pending> out = new ArrayList<>(Math.min(max, completions.size()));
    completions.drainTo(out, max);
    return out;
  }

  /**
   * Gives back completions a producer took but could not write (its statement failed, perhaps after
   * it committed); the completer retries them as such.
   */
  public void requeue(List<Pending> pending) {
    for (Pending p : pending) {
      retries.add(p.asRetried());
    }
    LockSupport.unpark(thread);
  }

  /** Finishes queued and not yet written. */
  public int pending() {
    return completions.size() + others.size() + retries.size();
  }

  /** Writes everything queued, then stops the thread; waits up to {@code timeout}. */
  @Override
  public void stop(Duration timeout) throws InterruptedException {
    if (!state.stop(() -> stopping = true)) {
      stopping = true;
      return;
    }
    LockSupport.unpark(thread);
    thread.join(Math.max(1, timeout.toMillis()));
  }

  private void loop() {
    List<Pending> batch = new ArrayList<>(batchSize);
    long backoffMillis = 50;
    while (true) {
      try {
        if (batch.isEmpty()) {
          fillBatch(batch);
        }
        if (batch.isEmpty()) {
          if (stopping && pending() == 0) {
            return;
          }
          idle = true;
          // Re-check after raising the flag: a submit that saw it down did not unpark us.
          fillBatch(batch);
          if (!batch.isEmpty()) {
            idle = false;
            continue;
          }
          if (completions.peek() != null) {
            idle = false; // waiting for the head's delay: later submits need not wake us
          }
          LockSupport.parkNanos(this, parkNanos());
          idle = false;
          if (Thread.interrupted() && !stopping) {
            return;
          }
          continue;
        }
        write(batch);
        afterOwnWrite.run();
        outage.answered();
        backoffMillis = 50;
      } catch (RuntimeException e) {
        if (isDataError(e)) {
          // Deterministic: retrying the same batch would fail forever and block every finish
          // behind it. Write the rows one by one; a row the database refuses gets a plain error
          // entry instead of its own, or, failing that, is left to the rescuer.
          writeOneByOne(batch);
          continue;
        }
        // The statement may have reached the server and committed: retry as such.
        batch.replaceAll(Pending::asRetried);
        if (!outage.failed("writing " + batch.size() + " finished jobs", e)) {
          log.warn(
              "cannot write {} finished jobs; retrying in {} ms (the jobs stay running and leased)",
              batch.size(),
              backoffMillis,
              e);
        }
        if (stopping && backoffMillis >= RETRY_BACKOFF_MAX.toMillis()) {
          log.warn(
              "giving up on {} finished jobs at stop; they will be rescued when their leases expire",
              batch.size() + pending());
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

  /** Whether {@code e} is the database refusing a value (SQL state class 22), not an outage. */
  private static boolean isDataError(RuntimeException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.sql.SQLException sql
          && sql.getSQLState() != null
          && sql.getSQLState().startsWith("22")) {
        return true;
      }
    }
    return false;
  }

  private void writeOneByOne(List<Pending> batch) {
    List<Pending> rows = new ArrayList<>(batch);
    batch.clear();
    for (Pending p : rows) {
      List<Pending> one = List.of(p);
      try {
        settle(one, writeFinishes(one));
        continue;
      } catch (RuntimeException e) {
        if (!isDataError(e)) {
          batch.add(p); // an outage after all: retry it with the rest
          continue;
        }
        log.warn(
            "the database refused the outcome of job {} (fence {}); recording a plain error"
                + " instead",
            p.job().id(),
            p.finish().fence(),
            e);
      }
      Finish f = p.finish();
      Finish plain =
          new Finish(
              f.id(),
              f.fence(),
              f.state(),
              f.delayMillis() == null ? null : 1_000L,
              f.errorJson() == null
                  ? null
                  : "{\"error\":\"unrecordable\",\"message\":\"the outcome of this attempt could"
                      + " not be stored (refused by the database)\"}",
              f.attemptDelta(),
              null,
              f.releasesDependents());
      Pending fallback = new Pending(p.job(), plain, p.onWritten(), p.queuedAtNanos(), p.retried());
      try {
        settle(List.of(fallback), writeFinishes(List.of(fallback)));
      } catch (RuntimeException e) {
        log.error(
            "cannot record any outcome of job {} (fence {}); it stays running and is rescued when"
                + " its lease expires",
            p.job().id(),
            f.fence(),
            e);
        held.remove(p.job());
      }
    }
    if (!batch.isEmpty()) {
      throw new IllegalStateException("database unavailable while writing finishes one by one");
    }
  }

  /**
   * Moves what is due into {@code batch}: retries and other finishes always, completions when due.
   */
  private void fillBatch(List<Pending> batch) {
    Pending r;
    while (batch.size() < batchSize && (r = retries.poll()) != null) {
      batch.add(r);
    }
    others.drainTo(batch, batchSize - batch.size());
    Pending head = completions.peek();
    if (head != null
        && (stopping
            || completions.size() >= batchSize
            || System.nanoTime() - head.queuedAtNanos() >= delayOf(head))) {
      completions.drainTo(batch, batchSize - batch.size());
    }
  }

  private long parkNanos() {
    Pending head = completions.peek();
    if (head == null) {
      return IDLE_PARK_NANOS;
    }
    long due = head.queuedAtNanos() + delayOf(head) - System.nanoTime();
    return Math.max(10_000, Math.min(due, IDLE_PARK_NANOS));
  }

  /**
   * Writes {@code batch}, removing each part from it once written, so a failure part-way retries
   * only what was not written (a written completion retried would match no row and be miscounted as
   * fenced).
   */
  private void write(List<Pending> batch) {
    // Plain completions take a cheaper statement; write them apart from the rest.
    List<Pending> plain = new ArrayList<>(batch.size());
    List<Pending> other = new ArrayList<>();
    for (Pending p : batch) {
      (p.finish().isPlainCompletion() ? plain : other).add(p);
    }
    if (!plain.isEmpty()) {
      settle(plain, writeFinishes(plain));
      batch.clear();
      batch.addAll(other);
    }
    if (!other.isEmpty()) {
      settle(other, writeFinishes(other));
    }
    batch.clear();
  }

  /**
   * Writes {@code pending}; returns the fences written. Finishes whose earlier try may have been
   * written are looked up as well when they match no running row.
   */
  private Set<Long> writeFinishes(List<Pending> pending) {
    Set<Long> retried = new HashSet<>();
    for (Pending p : pending) {
      if (p.retried()) {
        retried.add(p.finish().fence());
      }
    }
    return store.finishRetriedIfHeld(dataSource, finishes(pending), retried);
  }

  /** The finishes of {@code pending}, in order. */
  public static List<Finish> finishes(List<Pending> pending) {
    List<Finish> out = new ArrayList<>(pending.size());
    for (Pending p : pending) {
      out.add(p.finish());
    }
    return out;
  }

  /**
   * Records the outcome of a write: each finish whose fence is in {@code writtenFences} is counted;
   * each other one was fenced off and is dropped, counted and logged. Either way its job is no
   * longer held.
   */
  public void settle(List<Pending> pending, Set<Long> writtenFences) {
    for (Pending p : pending) {
      long id = p.job().id();
      // Settled by fence, not id: a node may hold two claims of one job (it re-claimed a job it
      // lost), and only the one whose fence matched was written.
      if (writtenFences.contains(p.finish().fence())) {
        p.onWritten().increment();
      } else if (p.retried() && store.deletesCompleted() && p.finish().isPlainCompletion()) {
        // The earlier try may have deleted the row: nothing is left to tell the cases apart.
        counters.fenced.increment();
        log.warn(
            "cannot tell whether the completion of job {} (fence {}) was written: an earlier try"
                + " failed without an answer and completed rows are not kept; if it was not"
                + " written, the job was rescued and its new holder's result counts",
            id,
            p.finish().fence());
      } else {
        counters.fenced.increment();
        log.warn(
            "dropped the result of job {} (fence {}, outcome {}): this node no longer holds it"
                + " (its lease expired and it was rescued); its new holder's result counts",
            id,
            p.finish().fence(),
            p.finish().state());
      }
      held.remove(p.job());
    }
  }
}
