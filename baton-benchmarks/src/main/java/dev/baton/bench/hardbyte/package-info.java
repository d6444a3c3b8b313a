/**
 * Baton as an adapter of hardbyte/postgresql-job-queue-benchmarking, the public long-horizon
 * benchmark of PostgreSQL job queues: {@link dev.baton.bench.hardbyte.HardbyteAdapter} reads the
 * harness's environment, produces and works jobs through Baton's public API, and writes the
 * protocol's JSONL (a descriptor, then clock-aligned samples) on stdout until SIGTERM.
 */
package dev.baton.bench.hardbyte;
