package dev.baton;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.List;

/**
 * A snapshot of one job row. Nothing here changes when the row changes later.
 *
 * @param id the job id
 * @param queue the queue it runs in
 * @param kind its kind, which selects the handler
 * @param args its args as JSON
 * @param state its state when read
 * @param priority lower runs first, 0..9
 * @param attempt attempts started so far (a snooze or a graceful hand-back gives one back)
 * @param maxAttempts attempts after which a failure discards the job
 * @param scheduledAt when it may run (first run, retry or snooze)
 * @param attemptedAt when the latest attempt started, or null
 * @param attemptedBy the node that started the latest attempt, or null
 * @param leaseExpiresAt when the current holder's lease runs out, or null when not running
 * @param deadlineAt when the current attempt must have finished, or null when not running
 * @param fence the fencing token of the latest claim; 0 if never claimed
 * @param idempotencyKey the key given at enqueue, or null
 * @param errors one entry per failed attempt, oldest first
 * @param metadata free-form JSON object
 * @param createdAt when it was enqueued
 * @param finalizedAt when it reached a final state, or null
 */
public record Job(
    long id,
    String queue,
    String kind,
    JsonNode args,
    JobState state,
    int priority,
    int attempt,
    int maxAttempts,
    Instant scheduledAt,
    Instant attemptedAt,
    String attemptedBy,
    Instant leaseExpiresAt,
    Instant deadlineAt,
    long fence,
    String idempotencyKey,
    List<JobError> errors,
    JsonNode metadata,
    Instant createdAt,
    Instant finalizedAt) {}
