package dev.baton.internal.producer;

import dev.baton.internal.RepeatingFailure;
import dev.baton.internal.completer.Completer;
import dev.baton.internal.db.ClaimedJob;
import dev.baton.internal.db.EnqueueStore;
import dev.baton.internal.db.Finish;
import dev.baton.internal.db.HolderStore;
import dev.baton.internal.executor.JobExecutor;
import dev.baton.internal.held.HeldJobs;
import dev.baton.internal.held.NodeCounters;
import dev.baton.internal.held.RunningJob;
import dev.baton.internal.held.StopReason;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims jobs of one queue into this node's free slots and hands them to the executor.
 *
 * <p>Two threads ({@link #CLAIM_STREAMS}), {@code baton-producer-<queue>} and {@code
 * baton-producer-<queue>-1}, share the queue's slots and buffer. Each sleeps until woken (a NOTIFY
 * for its queue, a local enqueue, a slot freed after a full claim, or the node's {@link Poller}
 * finding available jobs in the queue), then claims as many jobs as it has free slots with one
 * autocommit statement. It does not poll on its own: an idle queue costs no statement. A claim that
 * filled every free slot is followed by another as soon as a slot frees; a short claim means the
 * queue is drained and the producer sleeps. Never more than the queue's concurrency is in flight;
 * the connection is back in the pool before any handler starts.
 *
 * <p>Not public API.
 */
public final class Producer implements dev.baton.internal.Service {
  private static final Logger log = LoggerFactory.getLogger(Producer.class);

  /**
   * Claim loops per queue. A wake-up starts one of them; the second claims only when a wake-up
   * comes while the first waits for its statement, which happens when the queue has a backlog and
   * handlers free slots faster than one claim round trip. Two statements in flight keep the server
   * busy while the client hands out the last batch, so a drain of short jobs runs faster than with
   * one.
   */
  static final int CLAIM_STREAMS = 2;

  /**
   * Who claims and for how long: what every claim statement of a producer binds besides its queue
   * and limit.
   *
   * @param nodeId the claiming node
   * @param lease how long a claim holds a job before it must be extended
   * @param timeoutKinds the kinds whose handlers have a timeout of their own
   * @param timeoutMillis those timeouts, in the order of {@code timeoutKinds}
   * @param defaultTimeout the timeout of every other kind
   */
  public record Claim(
      String nodeId,
      Duration lease,
      String[] timeoutKinds,
      Long[] timeoutMillis,
      Duration defaultTimeout) {}

  /** How deep a producer claims ahead of its free slots. */
  public enum Depth {
    /** Follows the measured claim round trip and handler run time ({@link #depth()}). */
    ADAPTIVE,
    /** Exactly the prefetch, while the queue has a backlog. */
    FIXED
  }

  /**
   * How many jobs a producer claims ahead of its free slots.
   *
   * @param jobs with {@link Depth#ADAPTIVE}, the most jobs each claim stream holds beyond the free
   *     slots ({@link dev.baton.BatonConfig#ADAPTIVE_PREFETCH_LIMIT}); with {@link Depth#FIXED},
   *     exactly how many it claims ahead while the queue has a backlog
   * @param depth whether the claim depth follows the measured claim round trip and handler run
   *     time, as it does unless {@code prefetch(n)} fixed it
   */
  public record Prefetch(int jobs, Depth depth) {}

  /**
   * What a producer needs to claim.
   *
   * @param retryDelay how long to wait after a failed claim before claiming again
   * @param completionBatchSize the most completions a claim writes with it
   */
  public record Settings(
      String queue,
      int concurrency,
      Claim claim,
      Duration retryDelay,
      int completionBatchSize,
      Prefetch prefetch) {

    Duration lease() {
      return claim.lease();
    }

    boolean adaptivePrefetch() {
      return prefetch.depth() == Depth.ADAPTIVE;
    }
  }

  private final DataSource dataSource;
  private final HolderStore store;
  private final JobExecutor executor;
  private final Completer completer;
  private final HeldJobs held;
  private final NodeCounters counters;
  private final Settings settings;
  private final AtomicInteger inFlight = new AtomicInteger();
  // Jobs claimed ahead of free slots while the queue has a backlog: held (heartbeated) but not
  // started. A worker whose handler returns starts the next one itself, so a drain does not wait
  // for a claim round trip per slot.
  private final ConcurrentLinkedQueue<RunningJob> buffer = new ConcurrentLinkedQueue<>();
  private final AtomicInteger buffered = new AtomicInteger();
  private volatile boolean backlogged; // the last claim filled all it asked for
  // Free slots asked for by claims in flight (both streams), not yet counted in inFlight: each
  // claim asks only for the free slots the other has not, so no claim takes a job for a slot
  // another claim fills, and with prefetch 0 a node holds no job it cannot start. The prefetch
  // part is not shared: each stream may fill the buffer, so a node holds at most its concurrency
  // plus twice its prefetch. (Sharing that part too slowed the default drain: the second stream
  // then rarely had a claim in flight.)
  private final AtomicInteger claiming = new AtomicInteger();
  // Set by a stream that was woken while the other's claim held all the slots: that claim may have
  // been sent before what woke us (a resume, an enqueue), so the other stream claims once more
  // when its statement returns instead of sleeping on a short claim.
  private final AtomicBoolean claimAgain = new AtomicBoolean();
  // Counted down when the first claim pass at start ends, however it ends.
  private final CountDownLatch firstPass = new CountDownLatch(1);
  // The adaptive depth's two measurements (System.nanoTime spans, 0 until measured): moving
  // averages of a claim statement's round trip and of a handler's run time. Updated by several
  // threads without a lock; a lost update only delays the average.
  private volatile long claimNanos;
  private volatile long handlerNanos;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition wake = lock.newCondition();
  private final Thread[] threads;
  private boolean wakeRequested; // guarded by lock
  private final dev.baton.internal.ServiceState state = new dev.baton.internal.ServiceState();
  private volatile boolean running;
  private volatile boolean slotsWereFull;
  // Which claim the queue's cluster-wide limits call for, as this node last heard (the control
  // notification of a change, or the Poller). Only chooses the claim statement: the plain claim
  // takes nothing from a limited queue, the limited one nothing from a queue limited per key, and
  // each admits only what the limits leave, so a stale mode can delay claims by a poll interval,
  // never overshoot a limit.
  private volatile HolderStore.ClaimMode mode = HolderStore.ClaimMode.PLAIN;
  // Enqueues claiming in their insert (see tryReserve) between reserving a slot and starting or
  // handing back their job; stop() waits for them, so none starts after the client stopped.
  private final AtomicInteger reservations = new AtomicInteger();
  private volatile dev.baton.internal.Outage outage = new dev.baton.internal.Outage();
  // Both claim streams fail alike when the claim does: one log of it, not one per stream.
  private final RepeatingFailure claimFailures;
  private final Condition noReservations = lock.newCondition();

  /** A producer for one queue; call {@link #start()}. */
  public Producer(
      DataSource dataSource,
      HolderStore store,
      JobExecutor executor,
      Completer completer,
      Settings settings) {
    this.dataSource = dataSource;
    this.store = store;
    this.executor = executor;
    this.completer = completer;
    this.held = executor.held();
    this.counters = executor.counters();
    this.settings = settings;
    this.claimFailures =
        new RepeatingFailure(log, "cannot claim jobs of queue " + settings.queue());
    this.threads = new Thread[CLAIM_STREAMS];
    for (int i = 0; i < threads.length; i++) {
      threads[i] =
          new Thread(this::loop, "baton-producer-" + settings.queue() + (i == 0 ? "" : "-" + i));
      threads[i].setDaemon(true);
    }
  }

  /**
   * Reports connection losses to {@code outage}, shared with the client's other services, so an
   * outage is logged once; call before {@link #start()}. Returns this.
   */
  @Override
  public Producer reportingTo(dev.baton.internal.Outage outage) {
    this.outage = outage;
    return this;
  }

  /** The queue this producer claims from. */
  public String queue() {
    return settings.queue();
  }

  /** Jobs of this queue claimed and not yet finished by their handlers. */
  public int inFlight() {
    return inFlight.get();
  }

  /** Starts claiming, with a first claim at once. */
  @Override
  public void start() {
    state.start(
        () -> {
          running = true;
          wakeRequested = true;
          for (Thread t : threads) {
            t.start();
          }
        });
  }

  /**
   * Says whether the queue has a cluster-wide concurrency limit now; a limited queue is claimed
   * with {@link HolderStore#claimLimited}, claims no job ahead of its free slots (a job claimed
   * ahead would hold a share of the limit without running) and claims again whenever one of its
   * jobs ends. Cheap; safe from any thread.
   */
  public void mode(HolderStore.ClaimMode mode) {
    this.mode = mode;
  }

  /** Whether the queue has a cluster-wide limit, as this node last heard. */
  public boolean limited() {
    return mode != HolderStore.ClaimMode.PLAIN;
  }

  /**
   * Asks for a claim now if the queue has a cluster-wide limit: jobs of this node ended and their
   * completions were written apart from a claim, so they no longer hold a share of the limit. A
   * claim that ran while they were being written saw them running and may have taken fewer than the
   * slots free. Cheap; safe from any thread.
   */
  public void wakeIfLimited() {
    if (limited()) {
      wake();
    }
  }

  /** Asks for a claim now (there may be new jobs). Cheap; safe from any thread. */
  public void wake() {
    lock.lock();
    try {
      wakeRequested = true;
      wake.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Asks the claim loop to end after the claim in progress, if any; does not wait. */
  public void requestStop() {
    running = false;
    wake();
  }

  /**
   * Stops claiming and waits up to {@code timeout} for the claim loop to end; running jobs are not
   * touched.
   */
  @Override
  public void stop(Duration timeout) throws InterruptedException {
    if (!state.stop(this::requestStop)) {
      return;
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    for (Thread t : threads) {
      t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
    }
    lock.lock();
    try {
      // An enqueue holding a reservation is one statement away from starting its job or handing
      // it back; the client's stop must not pass it.
      long nanos = deadline - System.nanoTime();
      while (reservations.get() > 0 && nanos > 0) {
        nanos = noReservations.awaitNanos(nanos);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Claim on enqueue: runs {@code insert}, an enqueue that claims the job it inserts with the claim
   * it is given when nothing waits ahead of the job, in a slot reserved for it, and runs the job it
   * claimed in that slot. Returns the insert's result, or null, running nothing, when the producer
   * is not running, holds claimed jobs waiting for slots (a backlog, which the insert would not
   * overtake anyway), or has no slot free. The slot is given back when the insert claimed nothing
   * or failed; its exception is rethrown.
   */
  public EnqueueStore.EnqueuedClaim enqueueClaiming(
      Function<HolderStore.ClaimParams, EnqueueStore.EnqueuedClaim> insert) {
    if (!tryReserve()) {
      return null;
    }
    long claimedAt = System.nanoTime();
    EnqueueStore.EnqueuedClaim r;
    try {
      r = insert.apply(claimParams(1));
    } catch (RuntimeException e) {
      unreserve();
      throw e;
    }
    if (r.claimed() != null) {
      startReserved(r.claimed(), claimedAt);
    } else {
      unreserve();
    }
    return r;
  }

  /**
   * Reserves a slot for a job to be claimed in its own insert (claim on enqueue), or returns false:
   * when the producer is not running, holds claimed jobs waiting for slots (a backlog, which the
   * insert would not overtake anyway), or has no slot free. A true return must be followed by
   * {@link #startReserved} or {@link #unreserve}.
   */
  private boolean tryReserve() {
    if (!running || buffered.get() > 0) {
      return false;
    }
    reservations.incrementAndGet(); // before reading running: stop() waits for it or we see stop
    if (!running) {
      reservationDone();
      return false;
    }
    for (int n = inFlight.get(); n < settings.concurrency(); n = inFlight.get()) {
      if (inFlight.compareAndSet(n, n + 1)) {
        return true;
      }
    }
    reservationDone();
    return false;
  }

  /** The parameters a claim of up to {@code limit} jobs of this queue binds. */
  private HolderStore.ClaimParams claimParams(int limit) {
    return new HolderStore.ClaimParams(
        settings.queue(),
        limit,
        settings.claim().nodeId(),
        settings.claim().lease(),
        settings.claim().timeoutKinds(),
        settings.claim().timeoutMillis(),
        settings.claim().defaultTimeout());
  }

  /** Gives a reserved slot back unused: the job was not claimed in its insert. */
  private void unreserve() {
    try {
      inFlight.decrementAndGet();
      wake();
    } finally {
      reservationDone();
    }
  }

  /**
   * Runs {@code job}, claimed in its insert, in the reserved slot; {@code claimedAt} is the {@link
   * System#nanoTime()} taken before the insert. If the producer stopped meanwhile, the job is
   * handed back to the queue instead (available, attempt given back, fence-checked).
   */
  private void startReserved(ClaimedJob job, long claimedAt) {
    try {
      RunningJob rj = new RunningJob(job, this::release, claimedAt, settings.lease());
      held.add(rj);
      counters.claimed.increment();
      if (running) {
        executor.execute(rj);
      } else {
        inFlight.decrementAndGet();
        handBack(rj);
      }
    } finally {
      reservationDone();
    }
  }

  private void reservationDone() {
    if (reservations.decrementAndGet() == 0) {
      lock.lock();
      try {
        noReservations.signalAll();
      } finally {
        lock.unlock();
      }
    }
  }

  private void release(RunningJob done) {
    if (settings.adaptivePrefetch()) {
      long started = done.startedAtNanos();
      if (started != 0) {
        long ran = System.nanoTime() - started;
        long avg = handlerNanos;
        handlerNanos = avg == 0 ? Math.max(1, ran) : Math.max(1, avg + (ran - avg) / 8);
      }
    }
    RunningJob next = running ? takeBuffered() : null;
    if (next != null) {
      executor.execute(next); // the slot passes straight to the next buffered job
      if (buffered.get() <= depth() / 2) {
        wake(); // claim more before the buffer runs dry
      }
      return;
    }
    inFlight.decrementAndGet();
    // A limited queue's short claim does not mean it is drained: the limit may have cut it, and the
    // job that ended here frees a share of the limit once its completion is written.
    if (slotsWereFull || limited()) {
      wake();
    }
  }

  /**
   * Jobs each claim stream holds beyond the free slots while the queue has a backlog. Fixed by
   * {@code prefetch(n)}; otherwise (the default) as many as the slots run in two claim round trips,
   * {@code 2 * concurrency * claimRoundTrip / handlerRunTime} (both moving averages), and never
   * more than they run in a quarter lease nor than {@link
   * dev.baton.BatonConfig#ADAPTIVE_PREFETCH_LIMIT}. Two round trips because a stream claims again
   * when the buffer is half empty: the half left lasts one round trip. Handlers shorter than a
   * round trip make it grow, up to the limit; ones longer than {@code 2 * concurrency} round trips
   * make it 0 (claim only free slots), and it is 0 until a handler of the queue has returned. So
   * the buffer holds about two round trips of this node's own work, which is all another node that
   * competes for the queue can find waiting here, and a buffered job waits far less than the half
   * lease after which it is handed back.
   */
  int depth() {
    if (limited()) {
      return 0;
    }
    if (!settings.adaptivePrefetch()) {
      return settings.prefetch().jobs();
    }
    long job = handlerNanos;
    long rtt = claimNanos;
    if (job == 0 || rtt == 0) {
      return 0;
    }
    long slots = settings.concurrency();
    long roundTrips = 2 * slots * rtt / job;
    long quarterLease = slots * (settings.lease().toNanos() / 4) / job;
    return (int) Math.min(settings.prefetch().jobs(), Math.min(roundTrips, quarterLease));
  }

  /**
   * The next buffered job to start, or null. A job that waited in the buffer longer than half a
   * lease is handed back instead (available again, attempt given back), so that its stored
   * deadline, counted from the claim, always leaves the handler its whole timeout.
   */
  private RunningJob takeBuffered() {
    RunningJob rj;
    while ((rj = buffer.poll()) != null) {
      buffered.decrementAndGet();
      if (System.nanoTime() - rj.claimedAtNanos() <= settings.lease().toNanos() / 2) {
        return rj;
      }
      handBack(rj);
    }
    return null;
  }

  private void handBack(RunningJob rj) {
    try {
      completer.submit(rj, Finish.handedBack(rj.id(), rj.fence()), counters.handedBack);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      held.remove(rj); // left running: the rescuer returns it when its lease expires
    }
  }

  /** Hands every buffered job back; called when claiming stops. */
  private void handBackBuffered() {
    RunningJob rj;
    while ((rj = buffer.poll()) != null) {
      buffered.decrementAndGet();
      handBack(rj);
    }
  }

  private void loop() {
    try {
      claimLoop();
    } finally {
      handBackBuffered();
    }
  }

  private void claimLoop() {
    Duration backoff = Duration.ZERO;
    try {
      while (running) {
        try {
          // Without a backoff, wait for a wake-up however long: the node's Poller wakes this
          // producer when its queue has jobs that a lost notification left waiting.
          awaitWake(backoff);
          if (!running) {
            return;
          }
          fill();
          outage.answered();
          backoff = Duration.ZERO;
        } catch (InterruptedException e) {
          return;
        } catch (RuntimeException e) {
          backoff = settings.retryDelay();
          // A connection loss is the outage's to report (once); any other failure is logged
          // once, then at a bounded rate.
          if (!outage.failed("claiming jobs of queue " + settings.queue(), e)) {
            claimFailures.failed(e, backoff);
          }
        } finally {
          firstPass.countDown();
        }
      }
    } finally {
      firstPass.countDown();
    }
  }

  /**
   * Waits up to {@code timeout} until the claim made at start (of what waited while no producer
   * ran) has returned or failed, or claiming stopped. Returns whether it did.
   */
  public boolean awaitFirstClaim(Duration timeout) throws InterruptedException {
    return firstPass.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  private void fill() {
    while (running) {
      // Set before reading the count, so a slot freed right after the read still wakes us.
      slotsWereFull = true;
      startBufferedIntoFreeSlots();
      if (limited()) {
        awaitRunningJobsEnd();
      }
      int free = settings.concurrency() - inFlight.get();
      int depth = depth();
      int ahead = backlogged ? depth - buffered.get() : 0;
      if (free <= 0 && ahead <= depth / 2) {
        return; // slots busy and the buffer at least half full: wait for a slot
      }
      int asked = claiming.get();
      int freeLeft = Math.max(0, free) - asked;
      int limit = Math.max(0, freeLeft) + Math.max(0, ahead);
      // A limited queue's claims take turns on its row across the cluster, each holding it until
      // its commit is flushed: a second claim of this node would only wait for the first and split
      // the slots (and the completions it carries) with it. One at a time claims more per commit.
      if (limit <= 0 || (limited() && asked > 0)) {
        if (asked > 0) {
          // The other stream's claim in flight asks for the free slots; it claims again when it
          // returns. Set before reading the count, and read there after releasing it, so one of
          // the two always sees the other: if it already returned, count again here.
          claimAgain.set(true);
          if (claiming.get() == 0) {
            continue;
          }
        }
        return;
      }
      int reserved = Math.max(0, freeLeft);
      if (!claiming.compareAndSet(asked, asked + reserved)) {
        continue; // the other stream reserved slots meanwhile: count again
      }
      boolean full;
      try {
        full = claimInto(limit);
      } finally {
        claiming.addAndGet(-reserved); // its jobs now count in inFlight or buffered
      }
      if (!full && !claimAgain.getAndSet(false)) {
        return;
      }
    }
  }

  /**
   * Claims up to {@code limit} jobs (carrying the completions waiting to be written) and starts or
   * buffers them. Returns whether the claim filled its limit (the queue has a backlog).
   */
  private boolean claimInto(int limit) {
    long claimedAt = System.nanoTime(); // before the claim: a safe bound for lease and deadline
    HolderStore.ClaimParams params = claimParams(limit);
    // Finished jobs waiting to be written ride along with the claim: one commit for both.
    List<Completer.Pending> done = completer.takeCompletions(settings.completionBatchSize());
    List<ClaimedJob> claimed;
    HolderStore.ClaimMode m = mode;
    if (m == HolderStore.ClaimMode.PLAIN && done.isEmpty()) {
      claimed = store.claim(dataSource, params);
    } else {
      // A limited queue's claim carries the completions too: its count of running jobs leaves
      // them out, so they free their share of the limit in the same commit.
      HolderStore.CompleteAndClaim r;
      try {
        r =
            m == HolderStore.ClaimMode.PLAIN
                ? store.completeAndClaim(dataSource, Completer.finishes(done), params)
                : store.completeAndClaim(dataSource, m, Completer.finishes(done), params);
      } catch (RuntimeException e) {
        completer.requeue(done);
        throw e;
      }
      completer.settle(done, r.completed());
      claimed = r.claimed();
    }
    claimFailures.succeeded();
    long rtt = Math.max(1, System.nanoTime() - claimedAt);
    long avg = claimNanos;
    claimNanos = avg == 0 ? rtt : Math.max(1, avg + (rtt - avg) / 4);
    for (ClaimedJob job : claimed) {
      RunningJob rj = new RunningJob(job, this::release, claimedAt, settings.lease());
      RunningJob older = held.add(rj);
      if (older != null && older.fence() != rj.fence()) {
        // This node claimed again a job it still ran under an older fence: the new claim proves
        // the old one lost. Its handler is interrupted and its result will be dropped.
        counters.leasesLost.increment();
        log.warn(
            "lost job {} (fence {}): this node claimed it again under fence {}; interrupting the"
                + " older handler",
            job.id(),
            older.fence(),
            rj.fence());
        older.stop(StopReason.LOST);
      }
      counters.claimed.increment();
      if (inFlight.incrementAndGet() <= settings.concurrency()) {
        executor.execute(rj);
      } else {
        inFlight.decrementAndGet();
        buffered.incrementAndGet();
        buffer.add(rj);
      }
    }
    backlogged = claimed.size() == limit;
    if (!backlogged) {
      slotsWereFull = false; // drained: new jobs announce themselves by NOTIFY or the poll
    }
    return backlogged;
  }

  /** Starts buffered jobs while slots are free (slots freed while nothing was buffered). */
  private void startBufferedIntoFreeSlots() {
    while (buffered.get() > 0 && inFlight.get() < settings.concurrency()) {
      if (inFlight.incrementAndGet() > settings.concurrency()) {
        inFlight.decrementAndGet();
        return;
      }
      RunningJob next = takeBuffered();
      if (next == null) {
        inFlight.decrementAndGet();
        return;
      }
      executor.execute(next);
    }
  }

  /**
   * A limited queue's claim, while jobs of the queue still run here and a claim was measured, first
   * waits up to half a claim round trip for them to end. Its claims take turns on the queue's row,
   * each holding it until its commit is flushed, so their number, not their size, bounds the
   * queue's rate: jobs shorter than a round trip end within that wait, and one claim then refills
   * (and completes) every slot instead of one or two. Longer jobs pay up to half a round trip of
   * pickup latency.
   */
  private void awaitRunningJobsEnd() {
    long nanos = claimNanos / 2;
    if (nanos == 0 || inFlight.get() == 0) {
      return;
    }
    lock.lock();
    try {
      // release() signals the condition at every job end of a limited queue.
      while (running && nanos > 0 && inFlight.get() > 0) {
        nanos = wake.awaitNanos(nanos);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      lock.unlock();
    }
  }

  /** Waits for a wake-up, or for {@code timeout} unless it is zero. */
  private void awaitWake(Duration timeout) throws InterruptedException {
    boolean forever = timeout.isZero();
    long nanos = timeout.toNanos();
    lock.lock();
    try {
      while (!wakeRequested && running && (forever || nanos > 0)) {
        if (forever) {
          wake.await();
        } else {
          nanos = wake.awaitNanos(nanos);
        }
      }
      wakeRequested = false;
    } finally {
      lock.unlock();
    }
  }
}
