package dev.baton;

/**
 * A write by the holder of a job matched no row: the job is no longer {@code running} under this
 * holder's fence (its lease expired and it was rescued, it was cancelled, or it was finished
 * already). Thrown by {@link JobContext#completeIn(java.sql.Connection)}, so that the handler's own
 * transaction rolls back with it, and by {@link JobContext#extendLease(java.time.Duration)}.
 */
public class LostBatonException extends BatonException {
  private static final long serialVersionUID = 1L;
  private final long jobId;
  private final long fence;

  /** Creates the exception for the job and the fence that no longer holds it. */
  public LostBatonException(long jobId, long fence) {
    super(
        "cannot write job (id="
            + jobId
            + ", fence="
            + fence
            + "): this holder lost the job (its lease expired, or it was cancelled or finished);"
            + " roll back this transaction, the job is or will be run by its new holder");
    this.jobId = jobId;
    this.fence = fence;
  }

  /** The job the write was for. */
  public long jobId() {
    return jobId;
  }

  /** The fence of the stale holder. */
  public long fence() {
    return fence;
  }
}
