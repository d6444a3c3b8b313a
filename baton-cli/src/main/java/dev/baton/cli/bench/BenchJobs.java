package dev.baton.cli.bench;

import dev.baton.JobArgs;
import dev.baton.JobKind;

/** The args of the benchmark's jobs: no-ops with a tiny payload, as in the peer benchmark. */
public final class BenchJobs {
  private BenchJobs() {}

  /** A no-op job of the drain and enqueue benchmarks. */
  @JobKind("bench_noop")
  public record Noop(int i) implements JobArgs {}

  /**
   * A no-op job of the drain benchmark with a key ({@code --keys}): {@code k} is the field a limit
   * per key reads ({@link BenchOptions.KeyLimit#FIELD}).
   */
  @JobKind("bench_noop_keyed")
  public record KeyedNoop(int i, String k) implements JobArgs {}

  /**
   * A job of the latency benchmark: {@code enqueuedNanos} is {@link System#nanoTime()} taken just
   * before the enqueue call, in this JVM; {@code phase} says which measurement it belongs to.
   */
  @JobKind("bench_ping")
  public record Ping(long enqueuedNanos, int phase, int i) implements JobArgs {}
}
