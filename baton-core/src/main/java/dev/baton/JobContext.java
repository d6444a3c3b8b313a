package dev.baton;

import com.fasterxml.jackson.databind.JsonNode;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;

/**
 * What a handler knows about the attempt it runs, and what it may do to it.
 *
 * <p>Valid only while the handler runs, on any thread the handler uses.
 */
public interface JobContext {

  /** The job id. */
  long jobId();

  /** The job's kind. */
  String kind();

  /** The job's queue. */
  String queue();

  /** This attempt, 1-based. */
  int attempt();

  /** Attempts after which a failure discards the job. */
  int maxAttempts();

  /**
   * The fencing token of this claim. Strictly greater than that of every earlier claim of any job
   * in this schema, so a receiver that keeps the highest fence it has seen per idempotency key can
   * refuse a stale holder.
   */
  long fence();

  /**
   * A key that is the same on every attempt of this job: the job's idempotency key if it has one,
   * else {@code baton:<schema>:<job id>}. Send it to external systems so they can recognise a
   * repeat.
   */
  String idempotencyKey();

  /** The job's metadata (a JSON object). */
  JsonNode metadata();

  /** When this attempt times out: the handler is then interrupted and the attempt failed. */
  Instant deadline();

  /**
   * Whether the handler should stop: the job was cancelled, its lease was lost to another holder,
   * it timed out, or the client is stopping. The thread is interrupted at the same moment.
   */
  boolean isCancelled();

  /** Throws {@link InterruptedException} if {@link #isCancelled()}. */
  void throwIfCancelled() throws InterruptedException;

  /**
   * Extends this attempt for long work: the lease and the deadline move to at least {@code now +
   * extra}. Heartbeats never move the lease back; they keep extending it as usual once {@code now +
   * lease} passes it.
   *
   * @throws LostBatonException if this holder no longer holds the job
   */
  void extendLease(Duration extra);

  /**
   * Completes the job inside the caller's transaction on {@code connection}, fence-checked, so the
   * handler's own writes and the completion commit together or not at all. Call it last in the
   * transaction, then commit. If the transaction rolls back, the job is not completed: when the
   * handler then returns, the attempt is failed and retried.
   *
   * @throws LostBatonException if this holder no longer holds the job; the caller must roll back
   */
  void completeIn(Connection connection);

  /** A logger for this kind ({@code dev.baton.job.<kind>}). */
  Logger logger();
}
