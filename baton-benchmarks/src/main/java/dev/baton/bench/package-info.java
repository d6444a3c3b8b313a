/**
 * The benchmarks of this repository, {@link dev.baton.bench.BenchMain}: {@code baton bench}'s
 * drain, latency and enqueue (run from {@code dev.baton.cli.bench}), memory per job in flight, the
 * drain rate against worker count as a CSV and a PNG chart ({@code sweep}, {@code plot}), a soak
 * ({@link dev.baton.bench.SoakBench}: a fixed rate for a long time, with the job table's dead
 * tuples and size sampled over time), and the adapter of the peer-queue harness ({@link
 * dev.baton.bench.HarnessAdapter}). It prints figures and the command that reproduces them; it
 * never asserts a time. Uses only Baton's public API; nothing depends on this module.
 */
package dev.baton.bench;
