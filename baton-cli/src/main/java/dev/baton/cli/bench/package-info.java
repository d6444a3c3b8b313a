/**
 * {@code baton bench}, {@link dev.baton.cli.bench.Bench}: drain rate, pickup latency and enqueue
 * rate of Baton against a PostgreSQL server (the user's own, or embedded). It prints figures and
 * the command that reproduces them; it never asserts a time. Uses only Baton's public API. Part of
 * the command line, not a library API: its types are public for the benchmarks module
 * (baton-benchmarks), which builds its sweeps, soak and harness adapters on them.
 */
package dev.baton.cli.bench;
