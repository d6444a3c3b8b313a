package dev.baton.cli.lab;

import java.time.Duration;

/**
 * What one strategy did with its jobs.
 *
 * @param strategy the strategy
 * @param jobs jobs in its table
 * @param runs rows in its run table: one per time a worker worked a job
 * @param duplicates runs beyond the first of a job ({@code runs - distinct jobs run})
 * @param lost jobs no worker ran ({@code jobs - distinct jobs run}); 0 unless a strategy is broken
 * @param retries claims that came back without a job although jobs were left (optimistic: the
 *     conditional update matched no row; pessimistic: {@code FOR UPDATE} returned no row after
 *     waiting while others were still available)
 * @param lockWait time workers spent waiting for a row lock, summed over workers, as sampled from
 *     {@code pg_stat_activity}
 * @param elapsed from the moment all workers start until the last one finds no job left
 */
public record StrategyResult(
    Strategy strategy,
    long jobs,
    long runs,
    long duplicates,
    long lost,
    long retries,
    Duration lockWait,
    Duration elapsed) {

  /** Distinct jobs run per second of {@link #elapsed}. */
  public double jobsPerSecond() {
    long nanos = Math.max(1, elapsed.toNanos());
    return (jobs - lost) * 1e9 / nanos;
  }
}
