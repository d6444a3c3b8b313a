/**
 * A small benchmark entry point for Baton, {@link dev.baton.bench.BenchMain}: drain rate, pickup
 * latency and enqueue rate against a PostgreSQL server (given, or embedded), and the drain rate
 * against worker count as a CSV and a PNG chart ({@code sweep}, {@code plot}), and a soak ({@link
 * dev.baton.bench.SoakBench}: a fixed rate for a long time, with the job table's dead tuples and
 * size sampled over time). It prints figures and the command that reproduces them; it never asserts
 * a time. Uses only Baton's public API.
 */
package dev.baton.bench;
