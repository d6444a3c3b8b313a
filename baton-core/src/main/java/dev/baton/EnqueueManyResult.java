package dev.baton;

import java.util.Arrays;

/**
 * The result of a bulk enqueue, in the order of the requests.
 *
 * <p>For a request whose idempotency key or unique key ({@link UniqueOptions}) matched a job that
 * was already there (or an earlier request in the same call), {@link #jobIds()} holds that job's id
 * and {@link #existing()} is true.
 */
public final class EnqueueManyResult {
  private final long[] jobIds;
  private final boolean[] existing;

  /** Creates a result; the arrays are copied. */
  public EnqueueManyResult(long[] jobIds, boolean[] existing) {
    if (jobIds.length != existing.length) {
      throw new IllegalArgumentException("jobIds and existing differ in length");
    }
    this.jobIds = jobIds.clone();
    this.existing = existing.clone();
  }

  /** The job id of each request, in request order. */
  public long[] jobIds() {
    return jobIds.clone();
  }

  /** Whether each request matched an existing job by idempotency or unique key, in order. */
  public boolean[] existing() {
    return existing.clone();
  }

  /** How many requests there were. */
  public int size() {
    return jobIds.length;
  }

  /** How many new jobs were inserted. */
  public int insertedCount() {
    int n = 0;
    for (boolean e : existing) {
      if (!e) {
        n++;
      }
    }
    return n;
  }

  @Override
  public String toString() {
    return "EnqueueManyResult{size="
        + size()
        + ", inserted="
        + insertedCount()
        + ", ids="
        + (jobIds.length <= 10 ? Arrays.toString(jobIds) : jobIds.length + " ids")
        + "}";
  }
}
