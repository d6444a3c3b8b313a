package dev.baton.test;

import java.time.Duration;

/**
 * What one run of a handler in {@link HandlerHarness} would do to its job.
 *
 * @param outcome completed, retryable or discarded (a throw before or on the last attempt),
 *     cancelled ({@link dev.baton.CancelJob}, or a throw after {@link TestJobContext#cancel()}), or
 *     snoozed
 * @param error what the handler threw, or null when it returned
 * @param snoozeDelay the delay of a snooze, else null
 */
public record HandlerResult(Outcome outcome, Throwable error, Duration snoozeDelay) {}
