package dev.baton;

import java.util.Objects;
import java.util.function.Supplier;

/**
 * The result of enqueueing one job: its id, whether its idempotency key matched a job that was
 * already there, and the job as stored.
 *
 * <p>The {@link Job} is built on the first call of {@link #job()}: parsing its args and metadata
 * back into trees was the largest part of the client's work in an enqueue whose caller wants only
 * the id. It is still the row as the enqueue returned it, not read again.
 */
public final class EnqueueResult {
  private final long id;
  private final boolean existing;
  private Supplier<Job> source; // guarded by this; null once job is set
  private volatile Job job;

  /**
   * A result holding {@code job}.
   *
   * @param job the job as stored: the new one, or the one that already held the idempotency key
   * @param existing true when the idempotency key matched a job that was already there, so nothing
   *     was inserted
   */
  public EnqueueResult(Job job, boolean existing) {
    this.job = Objects.requireNonNull(job, "job");
    this.id = job.id();
    this.existing = existing;
  }

  /** A result whose job {@code source} builds when it is first asked for. */
  EnqueueResult(long id, boolean existing, Supplier<Job> source) {
    this.id = id;
    this.existing = existing;
    this.source = Objects.requireNonNull(source, "source");
  }

  /** The job's id: the new job's, or that of the job that already held the idempotency key. */
  public long id() {
    return id;
  }

  /**
   * True when the idempotency key matched a job that was already there, so nothing was inserted.
   */
  public boolean existing() {
    return existing;
  }

  /** The job as stored: the new one, or the one that already held the idempotency key. */
  public Job job() {
    Job j = job;
    if (j == null) {
      synchronized (this) {
        j = job;
        if (j == null) {
          j = source.get();
          job = j;
          source = null;
        }
      }
    }
    return j;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof EnqueueResult r && existing == r.existing && job().equals(r.job());
  }

  @Override
  public int hashCode() {
    return Objects.hash(job(), existing);
  }

  @Override
  public String toString() {
    return "EnqueueResult[job=" + job() + ", existing=" + existing + "]";
  }
}
