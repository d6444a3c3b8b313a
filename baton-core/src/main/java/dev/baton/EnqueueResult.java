package dev.baton;

import java.util.Objects;
import java.util.function.Supplier;

/**
 * The result of enqueueing one job: its id, whether its idempotency key or unique key matched a job
 * that was already there, whether this enqueue replaced or debounced that job, and the job as
 * stored.
 *
 * <p>The {@link Job} is built on the first call of {@link #job()}: parsing its args and metadata
 * back into trees was the largest part of the client's work in an enqueue whose caller wants only
 * the id. It is still the row as the enqueue returned it, not read again.
 */
public final class EnqueueResult {
  private final long id;
  private final boolean existing;
  private final boolean updated;
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
    this.updated = false;
  }

  /**
   * A result holding {@code job}, which this enqueue may have changed.
   *
   * @param job the job as stored after the enqueue
   * @param existing true when a job holding the idempotency key or unique key was already there
   * @param updated true when this enqueue replaced values of that waiting job or debounced it
   */
  public EnqueueResult(Job job, boolean existing, boolean updated) {
    this.job = Objects.requireNonNull(job, "job");
    this.id = job.id();
    this.existing = existing;
    this.updated = updated;
  }

  /** A result whose job {@code source} builds when it is first asked for. */
  EnqueueResult(long id, boolean existing, boolean updated, Supplier<Job> source) {
    this.id = id;
    this.existing = existing;
    this.updated = updated;
    this.source = Objects.requireNonNull(source, "source");
  }

  /** The job's id: the new job's, or that of the job that already held the key. */
  public long id() {
    return id;
  }

  /**
   * True when the idempotency key or unique key matched a job that was already there, so nothing
   * was inserted.
   */
  public boolean existing() {
    return existing;
  }

  /**
   * True when the job already there was waiting and this enqueue replaced some of its values or
   * debounced it ({@link UniqueOptions}); false for a new job and for a job left as it was (kept,
   * running or finished).
   */
  public boolean updated() {
    return updated;
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
    return o instanceof EnqueueResult r
        && existing == r.existing
        && updated == r.updated
        && job().equals(r.job());
  }

  @Override
  public int hashCode() {
    return Objects.hash(job(), existing, updated);
  }

  @Override
  public String toString() {
    return "EnqueueResult[job=" + job() + ", existing=" + existing + ", updated=" + updated + "]";
  }
}
