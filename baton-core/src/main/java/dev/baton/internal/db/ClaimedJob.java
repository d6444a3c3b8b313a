package dev.baton.internal.db;

import java.time.Instant;

/**
 * A job as claimed: what the runtime needs to run it. Args and metadata are raw JSON text. {@code
 * dueForMicros} is how long the job had been due ({@code scheduled_at}) when it was claimed, by the
 * database clock; 0 if it was not yet due. {@code hasDependents}: the job's finish releases other
 * jobs (a workflow step or batch member), so it is written with their release.
 *
 * <p>Not public API.
 */
public record ClaimedJob(
    long id,
    String queue,
    String kind,
    String args,
    int attempt,
    int maxAttempts,
    long fence,
    String idempotencyKey,
    String metadata,
    Instant deadlineAt,
    boolean cancelRequested,
    long dueForMicros,
    boolean hasDependents) {}
