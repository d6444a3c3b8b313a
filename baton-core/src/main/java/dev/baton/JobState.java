package dev.baton;

import java.util.Locale;

/**
 * The states of a job, stored as their lower-case names.
 *
 * <pre>
 * pending --(last dependency completed)--> available (or scheduled, if its run-at is ahead)
 * pending --(a dependency discarded or cancelled, policy cancel)--> cancelled
 * scheduled / retryable --(due)--> available --(claim)--> running
 * running --> completed | retryable | scheduled (snooze) | cancelled | discarded
 * running --(lease expired or deadline passed: rescue)--> retryable | discarded | cancelled
 * running --(graceful stop: handed back)--> available
 * </pre>
 */
public enum JobState {
  /**
   * Waiting for the jobs it depends on (a workflow step or a batch callback); never claimed until
   * they completed. See docs/workflows.md.
   */
  PENDING,
  /** Waiting for its run-at time. */
  SCHEDULED,
  /** Ready to be claimed. */
  AVAILABLE,
  /** Held by a worker under a lease and a fence. */
  RUNNING,
  /** Failed an attempt; waits for its backoff before it is available again. */
  RETRYABLE,
  /** Finished successfully (final). */
  COMPLETED,
  /** Stopped by a cancel (final). */
  CANCELLED,
  /** Failed its last attempt, or can never succeed (final). */
  DISCARDED;

  /** The name as stored in the {@code state} column. */
  public String dbName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Whether no further state change happens to a job in this state. */
  public boolean isFinal() {
    return this == COMPLETED || this == CANCELLED || this == DISCARDED;
  }

  /**
   * The state stored as {@code dbName}.
   *
   * @throws IllegalArgumentException for a name that is not a state
   */
  public static JobState fromDb(String dbName) {
    for (JobState s : values()) {
      if (s.dbName().equals(dbName)) {
        return s;
      }
    }
    throw new IllegalArgumentException(
        "unknown job state \""
            + dbName
            + "\"; expected one of pending, scheduled, available, running,"
            + " retryable, completed, cancelled, discarded");
  }
}
