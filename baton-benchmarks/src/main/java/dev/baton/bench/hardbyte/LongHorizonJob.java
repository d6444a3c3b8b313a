package dev.baton.bench.hardbyte;

import dev.baton.JobArgs;
import dev.baton.JobKind;

/**
 * The args of the adapter's jobs, under the kind the other adapters use.
 *
 * @param seq the producer's sequence number
 * @param producedAtMicros wall-clock time (microseconds since the epoch) taken just before the
 *     enqueue call; wall clock rather than {@link System#nanoTime()} so that a job enqueued by one
 *     replica and picked up by another still yields its latency
 * @param padding filler that brings the args JSON to about {@code JOB_PAYLOAD_BYTES}
 */
@JobKind("long_horizon_job")
public record LongHorizonJob(long seq, long producedAtMicros, String padding) implements JobArgs {}
