package dev.baton;

import java.util.Locale;

/**
 * What a discarded or cancelled dependency does to the jobs that wait for it: a per-workflow (and
 * per-batch) choice, stored on each dependency edge. Applied by the statement that records the
 * dependency's finish, or by the leader's releaser within a maintenance interval when the
 * dependency was finished by a rescue or an operator.
 */
public enum DependencyFailure {
  /**
   * The dependent is cancelled (final), with an error entry that says a dependency failed; its own
   * dependents are then treated the same way. The default.
   */
  CANCEL,
  /** The dependent counts the failed dependency as done and runs once the others completed. */
  RUN,
  /**
   * The dependent stays {@link JobState#PENDING} for an operator: retrying the failed dependency
   * (it then counts when it completes) or cancelling the dependent.
   */
  HOLD;

  /** The name as stored in {@code job_dependency.on_failure}. */
  public String dbName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
