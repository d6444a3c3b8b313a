package dev.baton.internal.held;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every job this node holds, by id: claimed and not yet finished (written or dropped). What the
 * heartbeater extends and what a graceful stop hands back. Not public API.
 */
public final class HeldJobs {
  private final ConcurrentHashMap<Long, RunningJob> jobs = new ConcurrentHashMap<>();

  /**
   * Adds a claimed job. Returns the job it replaced: an older claim of the same job by this node,
   * which therefore lost it (the job was rescued and this node claimed it again), or null.
   */
  public RunningJob add(RunningJob job) {
    return jobs.put(job.id(), job);
  }

  /** Removes a job whose finish was written or dropped. */
  public void remove(RunningJob job) {
    jobs.remove(job.id(), job);
  }

  /** The job with {@code id}, or null. */
  public RunningJob get(long id) {
    return jobs.get(id);
  }

  /** A snapshot of all held jobs. */
  public List<RunningJob> snapshot() {
    return new ArrayList<>(jobs.values());
  }

  /** How many jobs are held. */
  public int size() {
    return jobs.size();
  }

  /** How many held jobs have a handler running (started, not returned). */
  public long running() {
    return jobs.values().stream().filter(j -> j.started() && !j.handlerDone()).count();
  }
}
