package dev.baton;

/**
 * Thrown by a handler to stop the job for good: it becomes {@code cancelled} with the reason
 * recorded as an error entry, and is not retried.
 */
public final class CancelJob extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private CancelJob(String reason) {
    super(reason, null, false, false);
  }

  /** Cancels with {@code reason}, recorded on the job row. */
  public static CancelJob because(String reason) {
    return new CancelJob(reason);
  }
}
