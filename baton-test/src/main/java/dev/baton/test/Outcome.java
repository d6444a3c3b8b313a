package dev.baton.test;

/** What one run of a handler did to its job. */
public enum Outcome {
  /** The handler returned: the job is completed. */
  COMPLETED,
  /** The handler threw and attempts are left: the job is retried after its backoff. */
  RETRYABLE,
  /** The handler threw on its last attempt, or the args cannot be read: the job is discarded. */
  DISCARDED,
  /** The handler threw {@link dev.baton.CancelJob}, or the job was cancelled while it ran. */
  CANCELLED,
  /**
   * The handler threw {@link dev.baton.SnoozeJob}: the job runs again later, attempt given back.
   */
  SNOOZED
}
