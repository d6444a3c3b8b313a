package dev.baton;

import java.time.Instant;

/**
 * One entry in a job's {@code errors} column: what went wrong in one attempt.
 *
 * @param attempt the attempt that failed (1-based)
 * @param at when it was recorded
 * @param error the exception class, or a label such as {@code lease_expired} for a rescue
 * @param message the message
 * @param trace a trimmed stack trace, or null
 */
public record JobError(int attempt, Instant at, String error, String message, String trace) {}
