package dev.baton.internal.held;

/** Why a running handler was told to stop. Not public API. */
public enum StopReason {
  /** An operator cancelled the job. */
  CANCELLED,
  /** The attempt's timeout passed. */
  TIMED_OUT,
  /** The client is stopping; the job is handed back if the handler gives up. */
  SHUTDOWN,
  /** Another holder has the job now: nothing this holder writes will count. Overrides the rest. */
  LOST
}
