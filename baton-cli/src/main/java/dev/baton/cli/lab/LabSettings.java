package dev.baton.cli.lab;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What one lab run does; validated by the command before it gets here.
 *
 * @param jobs jobs in each strategy's table, at least 1
 * @param workers concurrent workers, each a thread with its own connection, at least 1
 * @param work how long a worker "works" each job it claims (a sleep), zero or more
 * @param lockScope how long the locking strategies hold their row lock
 * @param strategies the strategies to run, in this order, no repeats
 * @param labSchema the schema of the lab's tables, a validated identifier
 * @param keep whether to leave the lab schema in place after the run, for inspection
 */
public record LabSettings(
    int jobs,
    int workers,
    Duration work,
    LockScope lockScope,
    List<Strategy> strategies,
    String labSchema,
    boolean keep) {

  public LabSettings {
    Objects.requireNonNull(work, "work");
    Objects.requireNonNull(lockScope, "lockScope");
    strategies = List.copyOf(strategies);
    Objects.requireNonNull(labSchema, "labSchema");
  }
}
