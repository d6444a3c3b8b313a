package dev.baton;

/**
 * One job worked by {@link Drain}: which job ran, which attempt it was, and the state its outcome
 * left it in.
 *
 * @param id the job id
 * @param kind its kind
 * @param attempt the attempt that ran, 1-based
 * @param state the state after the outcome was written: {@code COMPLETED}, {@code RETRYABLE},
 *     {@code DISCARDED}, {@code CANCELLED}, or {@code SCHEDULED} (or {@code AVAILABLE} for a delay
 *     of zero) after a snooze; {@code RUNNING} only if the outcome could not be written because
 *     another holder took the job meanwhile
 * @param job the job's row after the outcome was written, or null when the completion deleted it
 *     ({@link BatonConfig.Builder#completedRetention} zero)
 */
public record JobRun(long id, String kind, int attempt, JobState state, Job job) {}
