package dev.baton.internal.executor;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.BatchJob;
import dev.baton.BatonException;
import dev.baton.CancelJob;
import dev.baton.JobArgs;
import dev.baton.JobContext;
import dev.baton.RetryPolicy;
import dev.baton.SnoozeJob;
import dev.baton.internal.db.AdminStore;
import dev.baton.internal.db.ClaimedJob;
import dev.baton.internal.db.Db;
import dev.baton.internal.db.Finish;
import dev.baton.internal.db.HolderStore;
import dev.baton.internal.db.JobRow;
import dev.baton.internal.held.AttemptEnd;
import dev.baton.internal.held.FinishQueue;
import dev.baton.internal.held.HeldJobs;
import dev.baton.internal.held.JobListener;
import dev.baton.internal.held.NodeCounters;
import dev.baton.internal.held.RunningJob;
import dev.baton.internal.held.StopReason;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one claimed job on a worker thread and turns its outcome into a fenced finish.
 *
 * <ul>
 *   <li>returned: completed (or, after a transactional completion, a check that it committed);
 *   <li>threw: retryable with the retry policy's delay, or discarded at max attempts;
 *   <li>{@link SnoozeJob}: scheduled after the delay, the attempt given back;
 *   <li>{@link CancelJob} or a cancel request: cancelled;
 *   <li>no handler for the kind: retryable (a rolling deploy may bring one);
 *   <li>args that do not map to the handler's type: discarded (no retry can help);
 *   <li>stopped by shutdown and gave up: handed back, available again, attempt given back;
 *   <li>lost to another holder: nothing is written; the result is dropped and counted as fenced.
 * </ul>
 *
 * <p>A handler failure is data: it is recorded on the row and never escapes the worker thread.
 *
 * <p>Not public API.
 */
public final class JobExecutor {
  private static final Logger log = LoggerFactory.getLogger(JobExecutor.class);
  private static final int MAX_TRACE_CHARS = 4_000;

  /** The logger of failed attempts and discarded jobs (docs/operations/logging.md). */
  static final String FAILURES_LOGGER = "dev.baton.failures";

  private static final String ROLLED_BACK =
      "the handler completed the job in its transaction and returned, but that transaction did not"
          + " commit";

  /** The longest error message stored per attempt; a longer one is cut, saying its length. */
  static final int MAX_MESSAGE_CHARS = 4_000;

  /** The longest snooze or retry delay written: 10 years (longer delays are cut to it). */
  static final Duration MAX_DELAY = Duration.ofDays(3650);

  /**
   * What the executor needs from the client. {@code maxOutputBytes} bounds a handler's output and
   * each step result, in bytes of JSON (the client's {@code maxArgsBytes}).
   */
  public record Settings(
      String schema,
      String nodeId,
      Duration defaultTimeout,
      Duration lease,
      RetryPolicy retryPolicy,
      int maxOutputBytes) {}

  private final DataSource dataSource;
  private final HolderStore store;
  private final AdminStore admin;
  private final ObjectMapper mapper;
  private final Map<String, HandlerEntry<?>> handlers;
  // One reader per args type: it keeps its root deserializer, so a job does not look up its type
  // and deserializer in the mapper's caches again (a tenth of a worker's CPU in a no-op drain).
  // Made when the executor is: made lazily, the first jobs of a fresh client all missed at once,
  // and hundreds of workers queued on one map entry while one of them built the deserializer.
  private final Map<Class<?>, ObjectReader> readers;
  private final FinishQueue completer;
  private final HeldJobs held;
  private final NodeCounters counters;
  private final ExecutorService workers;
  private final TimeoutSweeper timeouts;
  private final Holding holding;
  private final Settings settings;
  private final Map<String, Batcher> batchers; // by kind, for the kinds of batch handlers
  private final AtomicInteger active = new AtomicInteger();
  private final ScheduledExecutorService timer;
  private final FailureLog failureLog =
      new FailureLog(LoggerFactory.getLogger(FAILURES_LOGGER), System::nanoTime);
  private static final ThreadLocal<RunningJob> CURRENT = new ThreadLocal<>();
  private static final ThreadLocal<List<RunningJob>> CURRENT_BATCH = new ThreadLocal<>();
  // The worker state of the calling thread, set while it runs jobs of this executor.
  private final ThreadLocal<Worker> worker = new ThreadLocal<>();

  /**
   * A worker thread's hand-over point. While a job gives its slot back, a producer that passes the
   * slot to a buffered job leaves the job here, and the worker runs it next itself: no queue
   * operation, wake-up and context switch per job. Confined to its thread.
   */
  private static final class Worker {
    boolean releasing;
    RunningJob next;
  }

  /**
   * What an executor works with besides its handlers and threads.
   *
   * @param dataSource the node's pool, each connection bounded by the lease
   * @param store writes a transactional completion and extends a lease
   * @param admin reads a job for a handler's context
   * @param held the jobs the node holds
   * @param counters the node's outcome counters and listener
   * @param completer where finishes go to be written
   */
  public record Wiring(
      DataSource dataSource,
      HolderStore store,
      AdminStore admin,
      HeldJobs held,
      NodeCounters counters,
      FinishQueue completer) {}

  /** An executor running handlers on {@code workers}. */
  public JobExecutor(
      Wiring wiring,
      ObjectMapper mapper,
      Map<String, HandlerEntry<?>> handlers,
      ExecutorService workers,
      ScheduledExecutorService timer,
      Settings settings) {
    this.dataSource = wiring.dataSource();
    this.store = wiring.store();
    this.admin = wiring.admin();
    this.mapper = mapper;
    this.handlers = handlers;
    Map<Class<?>, ObjectReader> byType = new HashMap<>();
    for (HandlerEntry<?> h : handlers.values()) {
      byType.computeIfAbsent(h.argsType(), mapper::readerFor);
    }
    this.readers = Map.copyOf(byType);
    Map<String, Batcher> byKind = new HashMap<>();
    for (HandlerEntry<?> h : handlers.values()) {
      if (h.batches()) {
        byKind.put(h.kind(), new Batcher(h));
      }
    }
    this.batchers = Map.copyOf(byKind);
    this.completer = wiring.completer();
    this.held = wiring.held();
    this.counters = wiring.counters();
    this.workers = workers;
    this.timer = timer;
    this.timeouts = new TimeoutSweeper(timer, held);
    this.settings = settings;
    this.holding =
        new Holding(
            dataSource,
            store,
            mapper,
            new Holding.Terms(settings.schema(), settings.lease(), settings.maxOutputBytes()),
            timeouts);
  }

  /** The jobs the node holds, which this executor runs. */
  public HeldJobs held() {
    return held;
  }

  /** The node's outcome counters, which this executor counts in. */
  public NodeCounters counters() {
    return counters;
  }

  /**
   * Starts {@code job} on a worker thread. Called by a worker while its own job gives back its slot
   * (the slot passes to {@code job}), it runs {@code job} on that worker once the call returns.
   */
  public void execute(RunningJob job) {
    active.incrementAndGet();
    if (!batchers.isEmpty()) {
      Batcher b = batchers.get(job.job().kind());
      if (b != null) {
        b.add(job);
        return;
      }
    }
    Worker w = worker.get();
    if (w != null && w.releasing && w.next == null) {
      w.next = job;
      return;
    }
    try {
      submit(job);
    } catch (RuntimeException e) {
      active.decrementAndGet();
      throw e;
    }
  }

  private void submit(RunningJob job) {
    workers.execute(() -> work(job));
  }

  /** Runs {@code first}, then each job a release on this thread passed its slot to. */
  private void work(RunningJob first) {
    Worker w = new Worker();
    worker.set(w);
    try {
      for (RunningJob job = first; job != null; ) {
        try {
          run(job);
        } finally {
          active.decrementAndGet();
        }
        job = w.next;
        w.next = null;
      }
    } finally {
      worker.remove();
      if (w.next != null) {
        submit(w.next); // only when run threw: the job the slot passed to still runs
      }
    }
  }

  /**
   * Executions started and not yet over: an execution is over once its finish is queued for the
   * completer (or written, or dropped), which is later than its handler returning.
   */
  public int active() {
    return active.get();
  }

  /**
   * The jobs whose handler runs on the calling thread: the one job of a handler, the jobs of a
   * batch handler's call, or none.
   */
  public static List<RunningJob> currentJobs() {
    RunningJob one = CURRENT.get();
    if (one != null) {
      return List.of(one);
    }
    List<RunningJob> batch = CURRENT_BATCH.get();
    return batch != null ? batch : List.of();
  }

  private void run(RunningJob rj) {
    CURRENT.set(rj);
    try {
      runAttached(rj);
    } finally {
      CURRENT.remove();
    }
  }

  private void runAttached(RunningJob rj) {
    ClaimedJob job = rj.job();
    rj.attach(Thread.currentThread());
    Outcome outcome;
    try {
      HandlerEntry<?> entry = handlers.get(job.kind());
      StopReason before = rj.stopReason();
      if (before == StopReason.LOST) {
        outcome = Outcome.failed("lost", "lost before it started", null); // dropped by return_
      } else if (job.cancelRequested() || before == StopReason.CANCELLED) {
        outcome = Outcome.cancelled("cancelled before it started");
      } else if (entry == null) {
        outcome =
            Outcome.failed(
                "unknown_kind",
                "no handler is registered for kind \""
                    + job.kind()
                    + "\" on node "
                    + settings.nodeId()
                    + "; retrying, as a node with one may be deploying",
                null);
      } else {
        Object args = null;
        Outcome invalid = null;
        try {
          args = readers.get(entry.argsType()).readValue(job.args());
        } catch (Exception e) {
          invalid = invalidArgs(entry, job, e);
        }
        if (invalid != null) {
          outcome = invalid;
        } else {
          JobContextImpl context = new JobContextImpl(rj, holding);
          // The timeout runs from the start (a job may wait briefly in its producer's buffer);
          // the stored deadline, a timeout plus a lease after the claim, is still later.
          long startedAt = System.nanoTime();
          rj.startedAtNanos(startedAt);
          holding.rescheduleTimeout(rj, startedAt + Holding.saturatedNanos(timeoutOf(entry)));
          JobListener listener = counters.listener;
          if (listener != null) {
            listener.handlerStarting(
                job, job.dueForMicros() * 1_000 + (startedAt - rj.claimedAtNanos()));
          }
          outcome = invoke(entry, context, args);
          if (listener != null) {
            listener.handlerReturned(job, System.nanoTime() - startedAt, endOf(outcome));
          }
        }
      }
    } catch (Throwable unexpected) {
      outcome = Outcome.failed(unexpected);
    } finally {
      rj.cancelTimeout();
      rj.detach();
    }
    return_(rj, outcome);
  }

  @SuppressWarnings("unchecked")
  private <A extends JobArgs> Outcome invoke(
      HandlerEntry<A> entry, JobContextImpl ctx, Object args) {
    try {
      entry.handler().work(ctx, (A) args);
      return Outcome.success();
    } catch (Throwable t) {
      return outcomeOf(t);
    }
  }

  /**
   * The jobs of one batch handler's kind that are ready on this node, and the calls working them. A
   * call takes every ready job up to the handler's maximum. A new call starts when none is running
   * or a full batch is ready, so jobs that arrive while a call runs wait for the next call only as
   * long as they are fewer than a batch. A call past its timeout no longer counts as running: a
   * handler that ignores the interrupt holds up its own jobs, not the ones waiting after it.
   */
  private final class Batcher {
    private final HandlerEntry<?> entry;
    private final ConcurrentLinkedQueue<RunningJob> ready = new ConcurrentLinkedQueue<>();
    private final AtomicInteger size = new AtomicInteger();
    private final AtomicInteger calls = new AtomicInteger(); // running, not past their timeout

    Batcher(HandlerEntry<?> entry) {
      this.entry = entry;
    }

    void add(RunningJob rj) {
      ready.add(rj);
      int n = size.incrementAndGet();
      while (true) {
        int c = calls.get();
        if (c > 0 && n < entry.maxBatch()) {
          return; // a running call takes it when it returns
        }
        if (calls.compareAndSet(c, c + 1)) {
          break;
        }
      }
      try {
        workers.execute(this::loop);
      } catch (RuntimeException e) {
        calls.decrementAndGet();
        if (ready.remove(rj)) {
          size.decrementAndGet();
        }
        active.decrementAndGet();
        throw e;
      }
    }

    /** A call passed its timeout: it stops counting, and waiting jobs get a call of their own. */
    void overdue() {
      calls.decrementAndGet();
      if (size.get() > 0 && calls.compareAndSet(0, 1)) {
        try {
          workers.execute(this::loop);
        } catch (RuntimeException e) {
          calls.decrementAndGet(); // the client is stopping: the jobs are handed back or rescued
        }
      }
    }

    private void loop() {
      while (true) {
        List<RunningJob> batch = new ArrayList<>(Math.min(entry.maxBatch(), size.get() + 1));
        RunningJob rj;
        while (batch.size() < entry.maxBatch() && (rj = ready.poll()) != null) {
          size.decrementAndGet();
          batch.add(rj);
        }
        if (!batch.isEmpty()) {
          if (!runBatch(this, batch) && (size.get() == 0 || !calls.compareAndSet(0, 1))) {
            return; // an overdue call, already uncounted, and another call has the waiting jobs
          }
          continue;
        }
        calls.decrementAndGet();
        // A job added after the poll may have seen this call still running and started none.
        if (size.get() == 0 || !calls.compareAndSet(0, 1)) {
          return;
        }
      }
    }
  }

  /**
   * Runs one call of {@code batcher}'s handler for {@code jobs}, then finishes each job. Returns
   * false when the call went past its timeout, and so no longer counts among the batcher's calls.
   */
  private boolean runBatch(Batcher batcher, List<RunningJob> jobs) {
    HandlerEntry<?> entry = batcher.entry;
    Thread thread = Thread.currentThread();
    BatchRun run = new BatchRun(thread, jobs.size(), batcher::overdue);
    CURRENT_BATCH.set(List.copyOf(jobs));
    try {
      return callBatch(entry, thread, run, jobs);
    } finally {
      CURRENT_BATCH.remove();
    }
  }

  private boolean callBatch(
      HandlerEntry<?> entry, Thread thread, BatchRun run, List<RunningJob> jobs) {
    Outcome[] outcomes = new Outcome[jobs.size()];
    List<BatchJobImpl<?>> items = new ArrayList<>(jobs.size());
    int[] itemOf = new int[jobs.size()];
    JobListener listener = counters.listener;
    long startedAt = System.nanoTime();
    try {
      for (int i = 0; i < jobs.size(); i++) {
        RunningJob rj = jobs.get(i);
        ClaimedJob job = rj.job();
        rj.attach(thread, run);
        itemOf[i] = -1;
        StopReason before = rj.stopReason();
        if (before == StopReason.LOST) {
          outcomes[i] = Outcome.failed("lost", "lost before it started", null);
        } else if (job.cancelRequested() || before == StopReason.CANCELLED) {
          outcomes[i] = Outcome.cancelled("cancelled before it started");
        } else {
          Object args;
          try {
            args = readers.get(entry.argsType()).readValue(job.args());
          } catch (Exception e) {
            outcomes[i] = invalidArgs(entry, job, e);
            continue;
          }
          itemOf[i] = items.size();
          items.add(new BatchJobImpl<>(new JobContextImpl(rj, holding), args));
          rj.startedAtNanos(startedAt);
          holding.rescheduleTimeout(rj, startedAt + Holding.saturatedNanos(timeoutOf(entry)));
          if (listener != null) {
            listener.handlerStarting(
                job, job.dueForMicros() * 1_000 + (startedAt - rj.claimedAtNanos()));
          }
        }
      }
      Outcome all = items.isEmpty() ? Outcome.success() : invokeBatch(entry, items);
      long ran = System.nanoTime() - startedAt;
      for (int i = 0; i < jobs.size(); i++) {
        if (itemOf[i] >= 0) {
          BatchJobImpl<?> item = items.get(itemOf[i]);
          outcomes[i] = item.close(all);
          if (listener != null) {
            listener.handlerReturned(jobs.get(i).job(), ran, endOf(outcomes[i]));
          }
        }
      }
    } catch (Throwable unexpected) {
      Outcome failed = Outcome.failed(unexpected);
      for (int i = 0; i < outcomes.length; i++) {
        if (outcomes[i] == null) {
          outcomes[i] = failed;
        }
      }
    } finally {
      StopReason ended = run.endedFor();
      for (RunningJob rj : jobs) {
        if (ended != null) {
          rj.stop(ended); // a job whose own deadline had not been swept yet ended with the call
        }
        rj.cancelTimeout();
        rj.detach();
      }
    }
    for (int i = 0; i < jobs.size(); i++) {
      try {
        return_(jobs.get(i), outcomes[i]);
      } finally {
        active.decrementAndGet();
      }
    }
    return run.endedFor() != StopReason.TIMED_OUT;
  }

  @SuppressWarnings("unchecked")
  private <A extends JobArgs> Outcome invokeBatch(
      HandlerEntry<A> entry, List<BatchJobImpl<?>> items) {
    try {
      entry.batchHandler().work(Collections.unmodifiableList((List<BatchJob<A>>) (List<?>) items));
      return Outcome.success();
    } catch (Throwable t) {
      return outcomeOf(t);
    }
  }

  private static Outcome outcomeOf(Throwable t) {
    if (t instanceof SnoozeJob s) {
      return Outcome.snooze(s.delay());
    }
    if (t instanceof CancelJob c) {
      return Outcome.cancelled(c.getMessage());
    }
    return Outcome.failed(t);
  }

  private static Outcome invalidArgs(HandlerEntry<?> entry, ClaimedJob job, Exception e) {
    return Outcome.discard(
        "invalid_args",
        "args do not map to "
            + entry.argsType().getName()
            + " (kind "
            + job.kind()
            + "): "
            + messageOf(e)
            + "; discarded, as no retry can fix them");
  }

  /** One job of a batch call: its context, its args and the outcome the handler gave it. */
  private static final class BatchJobImpl<A extends JobArgs> implements BatchJob<A> {
    private final JobContextImpl context;
    private final A args;
    private Outcome outcome; // guarded by this
    private boolean closed; // guarded by this

    @SuppressWarnings("unchecked")
    BatchJobImpl(JobContextImpl context, Object args) {
      this.context = context;
      this.args = (A) args;
    }

    @Override
    public JobContext context() {
      return context;
    }

    @Override
    public A args() {
      return args;
    }

    @Override
    public synchronized void fail(Throwable cause) {
      Objects.requireNonNull(cause, "cause");
      if (closed) {
        throw new IllegalStateException(
            "job " + context.jobId() + ": fail() after its batch handler returned");
      }
      if (outcome == null) {
        outcome = outcomeOf(cause);
      }
    }

    /** Ends the call for this job: its own outcome, else the call's. */
    synchronized Outcome close(Outcome call) {
      closed = true;
      return outcome != null ? outcome : call;
    }
  }

  Duration timeoutOf(HandlerEntry<?> entry) {
    return entry.timeout() != null ? entry.timeout() : settings.defaultTimeout();
  }

  /** Turns the outcome into a finish and hands it to the completer; frees the slot. */
  private void return_(RunningJob rj, Outcome outcome) {
    rj.markHandlerDone();
    ClaimedJob job = rj.job();
    StopReason stop = rj.stopReason();
    try {
      if (rj.completedInTransaction()) {
        // Whatever the handler did after completeIn, the row says whether its transaction
        // committed: check it rather than write an outcome that the fence would then refuse.
        verifyTransactionalCompletion(rj, outcome, stop);
        return;
      }
      if (stop == StopReason.LOST) {
        counters.fenced.increment();
        log.warn(
            "dropped the result of job {} (fence {}): this node lost the job while its handler ran;"
                + " its new holder's result counts",
            job.id(),
            job.fence());
        held.remove(rj);
        return;
      }
      Finish finish = finishOf(rj, outcome, stop);
      LongAdder counter = counterFor(finish, stop, outcome);
      logFailure(job, finish, outcome, stop);
      if (log.isDebugEnabled()) {
        log.debug("job {} (kind {}) finished as {}", job.id(), job.kind(), finish.state());
      }
      completer.submit(rj, finish, counter);
    } catch (InterruptedException e) {
      // Stopping hard: the job stays running and is rescued when its lease expires.
      held.remove(rj);
      Thread.currentThread().interrupt();
    } finally {
      Worker w = worker.get();
      if (w != null) {
        w.releasing = true;
      }
      try {
        rj.releaseSlot();
      } finally {
        if (w != null) {
          w.releasing = false;
        }
      }
    }
  }

  /**
   * {@link #finishOrPlainFailure}, written with the release of the job's dependents when its claim
   * said it has any (a job without dependents takes the statements it always took).
   */
  private Finish finishOf(RunningJob rj, Outcome outcome, StopReason stop) {
    Finish f = finishOrPlainFailure(rj, outcome, stop);
    return rj.job().hasDependents() ? f.releasingDependents() : f;
  }

  /** {@link #finishFor}, or a plain failure when the outcome cannot be put into words. */
  private Finish finishOrPlainFailure(RunningJob rj, Outcome outcome, StopReason stop) {
    try {
      return finishFor(rj, outcome, stop);
    } catch (RuntimeException e) {
      // Never let an outcome that cannot be put into words strand the job: record a plain
      // failure naming what the handler threw.
      ClaimedJob job = rj.job();
      log.warn("cannot record the outcome of job {} as is; recording a plain failure", job.id(), e);
      String cls = outcome.errorClass != null ? outcome.errorClass : outcome.kind.name();
      String err = minimalError(job, cls, "the outcome could not be recorded: " + e);
      return job.attempt() >= job.maxAttempts()
          ? Finish.discarded(job.id(), job.fence(), err)
          : Finish.retryable(job.id(), job.fence(), 1_000L, err);
    }
  }

  private Finish finishFor(RunningJob rj, Outcome outcome, StopReason stop) {
    ClaimedJob job = rj.job();
    if (stop == StopReason.SHUTDOWN
        && outcome.kind != Kind.SUCCESS
        && outcome.kind != Kind.CANCELLED) {
      return Finish.handedBack(job.id(), job.fence());
    }
    if (stop == StopReason.CANCELLED && outcome.kind != Kind.SUCCESS
        || outcome.kind == Kind.CANCELLED) {
      String reason = outcome.kind == Kind.CANCELLED ? outcome.message : "cancel requested";
      return Finish.cancelled(job.id(), job.fence(), error(job, "cancelled", reason, null));
    }
    if (outcome.kind == Kind.SUCCESS) {
      return Finish.completed(job.id(), job.fence());
    }
    if (outcome.kind == Kind.SNOOZE) {
      long ms = clampedDelayMillis(outcome.delay);
      return Finish.snoozed(job.id(), job.fence(), ms, "{\"snoozes\":" + (snoozes(job) + 1) + "}");
    }
    String errorClass = outcome.errorClass;
    String message = outcome.message;
    if (stop == StopReason.TIMED_OUT) {
      errorClass = "timeout";
      message =
          "timed out at its deadline "
              + rj.deadline()
              + " and was interrupted"
              + (outcome.message == null ? "" : " (" + outcome.message + ")");
    }
    String err = error(job, errorClass, message, outcome.traced);
    if (outcome.kind == Kind.DISCARD || job.attempt() >= job.maxAttempts()) {
      return Finish.discarded(job.id(), job.fence(), err);
    }
    long delay = clampedDelayMillis(retryDelay(job, outcome.cause));
    return Finish.retryable(job.id(), job.fence(), delay, err);
  }

  private LongAdder counterFor(Finish finish, StopReason stop, Outcome outcome) {
    switch (finish.state()) {
      case "completed":
        return counters.completed;
      case "cancelled":
        return counters.cancelled;
      case "discarded":
        return counters.discarded;
      case "retryable":
        return counters.retried;
      default:
        return stop == StopReason.SHUTDOWN
                && outcome.kind != Kind.SUCCESS
                && outcome.kind != Kind.SNOOZE
            ? counters.handedBack
            : counters.snoozed;
    }
  }

  /**
   * The handler completed the job in its own transaction. If that transaction did not commit, the
   * job is still running under this fence: the attempt ends as the handler's outcome says (what it
   * threw, which is the commit's own exception when the commit failed), or, when it returned, as a
   * failure saying its transaction did not commit. Run on the worker thread, not batched: it waits
   * for the handler's transaction if that is still open.
   */
  private void verifyTransactionalCompletion(RunningJob rj, Outcome outcome, StopReason stop) {
    ClaimedJob job = rj.job();
    String what = "cannot check transactional completion of job (id=" + job.id() + ")";
    try {
      JobRow now =
          Db.inTransaction(
              dataSource,
              what,
              c -> {
                c.setNetworkTimeout(Runnable::run, (int) settings.lease().toMillis());
                return admin.get(c, job.id());
              });
      Check check = new Check(false, now);
      LongAdder counter = null;
      Finish failed = null;
      Outcome ended = outcome;
      if (now != null && "running".equals(now.state()) && now.fence() == job.fence()) {
        // Not committed (or still open: the fenced write below waits for it). Only now is the
        // retry policy asked, so a committed completion never calls it.
        ended =
            outcome.kind == Kind.SUCCESS
                ? Outcome.failed(
                    "transaction_rolled_back",
                    ROLLED_BACK,
                    new BatonException("job " + job.id() + ": " + ROLLED_BACK))
                : outcome;
        Finish finish = finishOf(rj, ended, stop);
        failed = finish;
        counter = counterFor(finish, stop, ended);
        check =
            Db.inTransaction(
                dataSource,
                what,
                c -> {
                  c.setNetworkTimeout(Runnable::run, (int) settings.lease().toMillis());
                  return store.finishIfHeld(c, finish)
                      ? new Check(true, null)
                      : new Check(false, admin.get(c, job.id()));
                });
      }
      JobRow after = check.after();
      if (check.failed()) {
        counter.increment();
        logFailure(job, failed, ended, stop);
      } else if (after == null
          ? store.deletesCompleted() // the running row is gone: its completion deleted it
          : "completed".equals(after.state()) && after.fence() == job.fence()) {
        counters.completed.increment();
        if (outcome.kind != Kind.SUCCESS) {
          log.warn(
              "job {} (kind {}) was completed by its handler's transaction, which committed; the"
                  + " handler then ended with {}, which changes nothing",
              job.id(),
              job.kind(),
              outcome.errorClass != null ? outcome.errorClass : outcome.kind.name().toLowerCase(),
              outcome.cause);
        }
      } else {
        counters.fenced.increment();
        log.warn(
            "job {} (fence {}) was not completed by its handler's transaction and now belongs to"
                + " fence {}; this holder's result is dropped",
            job.id(),
            job.fence(),
            after == null ? "none (deleted)" : after.fence());
      }
    } catch (RuntimeException e) {
      log.warn(
          "cannot check whether job {} was completed by its handler's transaction; if not, it is"
              + " rescued when its lease expires",
          job.id(),
          e);
    } finally {
      held.remove(rj);
    }
  }

  /**
   * Logs a finish that ends a failed attempt (retryable or discarded) on {@link #FAILURES_LOGGER},
   * within the per-kind limit of {@link FailureLog}.
   */
  private void logFailure(ClaimedJob job, Finish finish, Outcome outcome, StopReason stop) {
    boolean discarded = "discarded".equals(finish.state());
    if (!discarded && !"retryable".equals(finish.state())) {
      return;
    }
    FailureLog.Failure f =
        new FailureLog.Failure(
            new FailureLog.Attempt(
                job.id(), job.kind(), job.queue(), job.attempt(), job.maxAttempts()),
            discarded ? null : finish.delayMillis(),
            stop == StopReason.TIMED_OUT ? "timeout" : outcome.errorClass,
            stop == StopReason.TIMED_OUT
                ? "timed out and was interrupted"
                    + (outcome.message == null ? "" : " (" + capped(outcome.message) + ")")
                : capped(outcome.message),
            outcome.traced != null && printable(outcome.traced) ? outcome.traced : null);
    try {
      if (failureLog.failed(f)) {
        timer.schedule(
            failureLog::flushEnded,
            FailureLog.WINDOW.toMillis() + 100,
            java.util.concurrent.TimeUnit.MILLISECONDS);
      }
    } catch (RuntimeException e) {
      // the timer is stopped (the node is stopping) or the log failed: the row has the error
    }
  }

  /** Whether a logger can print {@code t} (its message can be read); the row has it either way. */
  private static boolean printable(Throwable t) {
    try {
      t.toString();
      return true;
    } catch (RuntimeException | LinkageError e) {
      return false;
    }
  }

  /**
   * What the check of a transactional completion found: {@code failed} when the attempt was still
   * held and is now recorded as failed; otherwise the job's row as it is now ({@code after}, null
   * when the row is gone).
   */
  private record Check(boolean failed, JobRow after) {}

  private Duration retryDelay(ClaimedJob job, Throwable cause) {
    try {
      HandlerEntry<?> entry = handlers.get(job.kind());
      RetryPolicy policy =
          entry != null && entry.retryPolicy() != null
              ? entry.retryPolicy()
              : settings.retryPolicy();
      Duration d = policy.nextDelay(job.attempt(), cause);
      return d == null || d.isNegative() ? Duration.ZERO : d;
    } catch (RuntimeException e) {
      log.warn("retry policy failed for job {}; retrying in 1 s", job.id(), e);
      return Duration.ofSeconds(1);
    }
  }

  private int snoozes(ClaimedJob job) {
    try {
      return mapper.readTree(job.metadata()).path("snoozes").asInt(0);
    } catch (Exception e) {
      return 0;
    }
  }

  /**
   * An error entry as JSON. Text PostgreSQL cannot store (NUL, half of a surrogate pair) is written
   * as its escape, e.g. {@code \\u0000}, never dropped or replaced; the message is cut to {@link
   * #MAX_MESSAGE_CHARS} (every attempt adds an entry to the row). A stack trace that cannot be
   * printed as is (its message cannot be read) is written from its frames.
   */
  String error(ClaimedJob job, String errorClass, String message, Throwable cause) {
    ObjectNode node = mapper.createObjectNode();
    node.put("attempt", job.attempt());
    node.put("error", clean(errorClass));
    node.put("message", clean(capped(message)));
    if (cause != null) {
      try {
        String trace = traceOf(cause);
        node.put(
            "trace",
            clean(trace.length() > MAX_TRACE_CHARS ? trace.substring(0, MAX_TRACE_CHARS) : trace));
      } catch (RuntimeException e) {
        node.put("trace", "(stack trace unavailable: " + clean(e.getClass().getName()) + ")");
      }
    }
    return node.toString();
  }

  private String minimalError(ClaimedJob job, String errorClass, String message) {
    ObjectNode node = mapper.createObjectNode();
    node.put("attempt", job.attempt());
    node.put("error", clean(errorClass));
    node.put("message", clean(capped(message)));
    return node.toString();
  }

  private static String capped(String message) {
    if (message == null || message.length() <= MAX_MESSAGE_CHARS) {
      return message;
    }
    // Never half of a surrogate pair, which would not be stored as written.
    int end =
        MAX_MESSAGE_CHARS
            - (Character.isHighSurrogate(message.charAt(MAX_MESSAGE_CHARS - 1)) ? 1 : 0);
    return message.substring(0, end) + "... (cut: " + message.length() + " characters)";
  }

  /**
   * {@code s} with what PostgreSQL cannot store in text written as its Java escape: NUL, which no
   * text value holds, and an unpaired surrogate, which the driver would send as {@code ?}.
   */
  static String clean(String s) {
    if (s == null) {
      return null;
    }
    StringBuilder out = null;
    int n = s.length();
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      boolean paired =
          Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))
              || Character.isLowSurrogate(c) && i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
      if (c == 0 || Character.isSurrogate(c) && !paired) {
        if (out == null) {
          out = new StringBuilder(n + 8).append(s, 0, i);
        }
        out.append(String.format("\\u%04X", (int) c));
      } else if (out != null) {
        out.append(c);
      }
    }
    return out == null ? s : out.toString();
  }

  /**
   * The message of {@code t}; when reading it throws, a note saying so and what it threw, so the
   * failure is still recorded under {@code t}'s own class.
   */
  static String messageOf(Throwable t) {
    try {
      return t.getMessage();
    } catch (RuntimeException | LinkageError e) {
      String why;
      try {
        why = e.toString();
      } catch (RuntimeException | LinkageError again) {
        why = e.getClass().getName();
      }
      return "(its message could not be read: getMessage() threw " + why + ")";
    }
  }

  /**
   * The stack trace of {@code t} as printed; when printing throws (a message that cannot be read),
   * the same built from its frames and causes with {@link #messageOf}.
   */
  static String traceOf(Throwable t) {
    try {
      StringWriter sw = new StringWriter();
      t.printStackTrace(new PrintWriter(sw));
      return sw.toString();
    } catch (RuntimeException | LinkageError e) {
      StringBuilder sb = new StringBuilder();
      java.util.Set<Throwable> seen =
          java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
      for (Throwable c = t; c != null && seen.add(c) && sb.length() < MAX_TRACE_CHARS; ) {
        sb.append(c == t ? "" : "Caused by: ")
            .append(c.getClass().getName())
            .append(": ")
            .append(messageOf(c))
            .append('\n');
        for (StackTraceElement frame : c.getStackTrace()) {
          sb.append("\tat ").append(frame).append('\n');
        }
        c = c.getCause();
      }
      return sb.toString();
    }
  }

  /**
   * A delay in milliseconds that the database can add to now(): negative becomes 0, anything above
   * {@link #MAX_DELAY} (or too large for a long) becomes {@link #MAX_DELAY}.
   */
  static long clampedDelayMillis(Duration d) {
    if (d == null || d.isNegative()) {
      return 0;
    }
    return d.compareTo(MAX_DELAY) > 0 ? MAX_DELAY.toMillis() : d.toMillis();
  }

  private static AttemptEnd endOf(Outcome outcome) {
    switch (outcome.kind) {
      case SUCCESS:
        return AttemptEnd.SUCCEEDED;
      case DISCARD:
        return AttemptEnd.DISCARDED;
      case SNOOZE:
        return AttemptEnd.SNOOZED;
      case CANCELLED:
        return AttemptEnd.CANCELLED;
      default:
        return AttemptEnd.FAILED;
    }
  }

  private enum Kind {
    SUCCESS,
    FAILED,
    DISCARD,
    SNOOZE,
    CANCELLED
  }

  private static final class Outcome {
    final Kind kind;
    final String errorClass;
    final String message;
    final Throwable cause; // what the retry policy is called with
    final Throwable traced; // whose stack trace is recorded: the cause, or null for a label
    final Duration delay;

    private Outcome(
        Kind kind,
        String errorClass,
        String message,
        Throwable cause,
        Throwable traced,
        Duration delay) {
      this.kind = kind;
      this.errorClass = errorClass;
      this.message = message;
      this.cause = cause;
      this.traced = traced;
      this.delay = delay;
    }

    static Outcome success() {
      return new Outcome(Kind.SUCCESS, null, null, null, null, null);
    }

    static Outcome snooze(Duration d) {
      return new Outcome(Kind.SNOOZE, null, null, null, null, d);
    }

    static Outcome cancelled(String reason) {
      return new Outcome(Kind.CANCELLED, "cancelled", reason, null, null, null);
    }

    /** A failure under a label (no trace: {@code cause} only tells the retry policy why). */
    static Outcome failed(String errorClass, String message, Throwable cause) {
      return new Outcome(Kind.FAILED, errorClass, message, cause, null, null);
    }

    /** A failure that is {@code t}: its class, its message and its stack trace. */
    static Outcome failed(Throwable t) {
      return new Outcome(Kind.FAILED, t.getClass().getName(), messageOf(t), t, t, null);
    }

    static Outcome discard(String errorClass, String message) {
      return new Outcome(Kind.DISCARD, errorClass, message, null, null, null);
    }
  }
}
