package dev.baton;

/**
 * Outcome counts of one client since it started. A snapshot; the fields do not change later.
 *
 * @param claimed jobs this node claimed
 * @param completed completions written
 * @param retried failed attempts written as retryable
 * @param discarded jobs written as discarded (last attempt failed, or args that cannot be read)
 * @param cancelled jobs written as cancelled by their handler or a cancel request
 * @param snoozed snoozes written
 * @param fenced results dropped because this node no longer held the job (a stale holder's write
 *     that changed nothing)
 * @param leasesLost running handlers interrupted because the heartbeat found their job lost
 * @param rescued jobs this node's rescuer returned to the queue
 * @param handedBack jobs handed back at a graceful stop
 * @param running handlers running now
 */
public record Counters(
    long claimed,
    long completed,
    long retried,
    long discarded,
    long cancelled,
    long snoozed,
    long fenced,
    long leasesLost,
    long rescued,
    long handedBack,
    long running) {}
