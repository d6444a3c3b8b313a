package dev.baton.internal.executor;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.BatonException;
import dev.baton.JobError;
import dev.baton.JobRun;
import dev.baton.JobState;
import dev.baton.internal.db.AdminStore;
import dev.baton.internal.db.ClaimedJob;
import dev.baton.internal.db.Db;
import dev.baton.internal.db.DrainStore;
import dev.baton.internal.db.Finish;
import dev.baton.internal.db.HolderStore;
import dev.baton.internal.db.JobRow;
import dev.baton.internal.held.FinishQueue;
import dev.baton.internal.held.HeldJobs;
import dev.baton.internal.held.NodeCounters;
import dev.baton.internal.held.RunningJob;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;

/**
 * Works the due jobs of one queue on the calling thread, one at a time, for tests ({@link
 * dev.baton.Drain}). Each job is claimed with the real claim (attempt, fence, lease, deadline) and
 * run by a {@link JobExecutor} of the client's handlers whose worker is the calling thread; its
 * finish is written before the next job is claimed. Time is the drain's {@code now}: jobs waiting
 * for a time at or before it are made due, and retry and snooze delays count from it, so a test
 * moves time by calling again with a later {@code now} (the one retry the executor writes itself,
 * after a transactional completion that rolled back, is moved onto that clock afterwards). The
 * handler's timeout is enforced in real time, as in a started client.
 *
 * <p>Not public API.
 */
public final class Drainer implements FinishQueue {

  /**
   * Makes the executor of a drain: its handlers run on {@code workers}, finishes go to {@code
   * sink}.
   */
  @FunctionalInterface
  public interface ExecutorFactory {
    /**
     * An executor on {@code workers} handing finishes to {@code sink}, timing out on {@code timer}.
     */
    JobExecutor create(ExecutorService workers, FinishQueue sink, ScheduledExecutorService timer);
  }

  /**
   * What one drain works.
   *
   * @param claim the claim of one job of the queue, as a producer of this client would send it
   * @param now the drain's time
   * @param maxRuns most jobs run before the drain gives up
   */
  public record Settings(HolderStore.ClaimParams claim, Instant now, int maxRuns) {}

  private final DataSource dataSource;
  private final HolderStore store;
  private final AdminStore admin;
  private final DrainStore drains;
  private final HeldJobs held;
  private final NodeCounters counters;
  private final ObjectMapper mapper;
  private Instant now;

  /** A drainer on the client's pool, stores, held jobs and counters. */
  public Drainer(
      DataSource dataSource,
      HolderStore store,
      AdminStore admin,
      HeldJobs held,
      NodeCounters counters,
      ObjectMapper mapper) {
    this.dataSource = dataSource;
    this.store = store;
    this.admin = admin;
    this.drains = new DrainStore(store);
    this.held = held;
    this.counters = counters;
    this.mapper = mapper;
  }

  /**
   * Runs the queue's due jobs until none is left, in claim order (priority, run-at time, id),
   * including jobs that the handlers enqueue or snooze for a time not after {@code now}.
   *
   * @throws BatonException if more than {@code maxRuns} jobs would run, or on a database error
   */
  public List<JobRun> drain(Settings s, ExecutorFactory executors) {
    this.now = s.now();
    String queue = s.claim().queue();
    ScheduledThreadPoolExecutor timer =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "baton-timer-drain");
              t.setDaemon(true);
              return t;
            });
    try {
      JobExecutor executor = executors.create(new CallerRuns(), this, timer);
      List<JobRun> runs = new ArrayList<>();
      while (drains.makeDue(dataSource, queue, now) > 0) {
        if (runs.size() >= s.maxRuns()) {
          throw new BatonException(
              "cannot drain queue "
                  + queue
                  + ": "
                  + runs.size()
                  + " jobs ran and more are due (the limit is "
                  + s.maxRuns()
                  + "); a handler may enqueue or snooze jobs without end");
        }
        long claimedAt = System.nanoTime();
        // The limited claim: a drain is rare, and it then respects a queue's cluster-wide limit.
        List<ClaimedJob> claimed = store.claimLimited(dataSource, s.claim());
        if (claimed.isEmpty()) {
          break; // paused, at its cluster-wide limit, or another client took the job
        }
        ClaimedJob job = claimed.get(0);
        RunningJob rj = new RunningJob(job, () -> {}, claimedAt, s.claim().lease());
        held.add(rj);
        counters.claimed.increment();
        executor.execute(rj);
        JobRun run = runOf(job);
        if (rj.completedInTransaction() && run.state() == JobState.RETRYABLE) {
          run = retryByTheDrainsClock(job, run);
        }
        runs.add(run);
      }
      return runs;
    } finally {
      timer.shutdownNow();
    }
  }

  /**
   * Writes the finish at once, on the calling thread, with its delay counted from the drain's time.
   */
  @Override
  public void submit(RunningJob job, Finish finish, LongAdder onWritten) {
    try {
      if (drains.finishIfHeld(dataSource, finish, now)) {
        onWritten.increment();
      } else {
        counters.fenced.increment();
      }
    } finally {
      held.remove(job);
    }
  }

  /**
   * A handler that completed its job in its own transaction, which then rolled back, is retried by
   * the executor's own check, outside the drain's finishes: its run-at time came from the
   * database's clock. That statement stamped the error with the same clock, so the delay is their
   * difference; it is counted again from the drain's time.
   */
  private JobRun retryByTheDrainsClock(ClaimedJob job, JobRun run) {
    List<JobError> errors = run.job().errors();
    if (errors.isEmpty()) {
      return run;
    }
    Duration delay = Duration.between(errors.get(errors.size() - 1).at(), run.job().scheduledAt());
    drains.setRunAt(dataSource, job.id(), job.fence(), now.plus(delay));
    return runOf(job);
  }

  private JobRun runOf(ClaimedJob job) {
    JobRow row =
        Db.inTransaction(
            dataSource, "cannot read job (id=" + job.id() + ")", c -> admin.get(c, job.id()));
    return row == null
        ? new JobRun(job.id(), job.kind(), job.attempt(), JobState.COMPLETED, null)
        : new JobRun(
            job.id(), job.kind(), job.attempt(), JobState.fromDb(row.state()), row.toJob(mapper));
  }

  /** Runs each task on the thread that submits it: the drain's caller. */
  private static final class CallerRuns extends AbstractExecutorService {
    private volatile boolean shutdown;

    @Override
    public void execute(Runnable command) {
      command.run();
    }

    @Override
    public void shutdown() {
      shutdown = true;
    }

    @Override
    public List<Runnable> shutdownNow() {
      shutdown = true;
      return List.of();
    }

    @Override
    public boolean isShutdown() {
      return shutdown;
    }

    @Override
    public boolean isTerminated() {
      return shutdown;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
      return true;
    }
  }
}
