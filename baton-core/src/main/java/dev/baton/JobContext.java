package dev.baton;

import com.fasterxml.jackson.databind.JsonNode;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
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

  /**
   * Records {@code output}, serialised to JSON, as this job's output, replacing any earlier one (of
   * this or an earlier attempt). Written at once, fence-checked: a holder that lost the job records
   * nothing. Dependents read it with {@link #dependencyOutput}; {@code baton jobs show} and the
   * admin API show it. At most {@link BatonConfig#maxArgsBytes()} bytes of JSON.
   *
   * @throws LostBatonException if this holder no longer holds the job (the handler is also
   *     interrupted)
   * @throws InvalidJobException if the output does not serialise or is over the size limit
   */
  void recordOutput(Object output);

  /**
   * Runs a durable step once: if an earlier attempt of this job recorded step {@code name}, returns
   * its recorded result (read as {@code type}) without calling {@code body}; otherwise calls {@code
   * body}, records its result fence-checked as soon as it returns, and returns it. A crash after
   * the record leaves the step done for the next attempt; a crash between {@code body}'s return and
   * the record runs it again (at-least-once, like the job). Use {@link #stepIn} when the step's
   * effect is a write to the same database, to record the two in one transaction. Step names are
   * unique within a handler; at most {@link BatonConfig#maxArgsBytes()} bytes of JSON per result.
   *
   * @throws LostBatonException if this holder no longer holds the job when recording
   * @throws Exception what {@code body} throws (nothing is recorded then)
   */
  <T> T step(String name, Class<T> type, Callable<T> body) throws Exception;

  /**
   * {@link #step} whose record is written in the caller's transaction on {@code connection}: the
   * step's own writes on that connection and its record commit together or not at all, so its
   * effect happens exactly once across attempts. Commit after it returns; a rolled-back step is not
   * recorded.
   *
   * @throws LostBatonException if this holder no longer holds the job; the caller must roll back
   */
  <T> T stepIn(Connection connection, String name, Class<T> type, Callable<T> body)
      throws Exception;

  /**
   * Reports progress: {@code fraction} done (0 to 1) and a short message (at most 200 characters,
   * may be null). Throttled: written at most once a second per attempt (reports in between are
   * dropped), except a fraction of 1, which is always written. Fence-checked.
   *
   * @throws LostBatonException if this holder no longer holds the job when the report is written
   * @throws IllegalArgumentException for a fraction outside 0..1 or a longer message
   */
  void progress(double fraction, String message);

  /**
   * The jobs this job waits for (a workflow step's dependencies, a batch callback's members), by
   * id, each with its step name, state and output. Read from the database on each call; empty for a
   * job without dependencies.
   */
  List<Dependency> dependencies();

  /**
   * The output of the dependency that is step {@code stepName} of this job's workflow, or null when
   * that step recorded none.
   *
   * @throws IllegalArgumentException if this job does not wait for a step of that name
   */
  JsonNode dependencyOutput(String stepName);

  /**
   * How many of this job's dependencies are in each state: for a batch callback, the counts of
   * completed, discarded and cancelled members (states absent count zero). One grouped read.
   */
  Map<JobState, Long> dependencyCounts();
}
