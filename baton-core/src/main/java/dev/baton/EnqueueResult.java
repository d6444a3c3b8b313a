package dev.baton;

/**
 * The result of enqueueing one job.
 *
 * @param job the job as stored: the new one, or the one that already held the idempotency key
 * @param existing true when the idempotency key matched a job that was already there, so nothing
 *     was inserted
 */
public record EnqueueResult(Job job, boolean existing) {}
