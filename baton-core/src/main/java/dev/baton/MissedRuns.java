package dev.baton;

/**
 * What the leader does with the due times of a {@link PeriodicJob} that passed while no leader was
 * up (older than {@link PeriodicJob#lateTolerance()}). Due times within the tolerance, such as
 * those during a leader change, always run, each once.
 */
public enum MissedRuns {
  /** Enqueue nothing for missed due times; the schedule goes on from the next one. */
  SKIP,
  /** Enqueue one run for all the missed due times together (keyed by the latest of them). */
  CATCH_UP_ONCE
}
