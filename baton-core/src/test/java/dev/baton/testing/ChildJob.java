package dev.baton.testing;

import dev.baton.JobArgs;

/**
 * Args of the jobs that {@link WorkerMain} children and the tests that drive them share.
 *
 * @param label what the test calls this job; handlers in the test JVM may act on it
 */
public record ChildJob(String label) implements JobArgs {

  /** The queue children work. */
  public static final String QUEUE = "child";
}
