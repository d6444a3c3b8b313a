/**
 * Support for the pgbench scripts in {@code baton-benchmarks/pgbench/}: Baton's own claim and
 * completion SQL run raw by pgbench, the physical limit of Baton's model on a server. {@link
 * dev.baton.bench.pgbench.PrintSchema} prints the schema those scripts run on.
 */
package dev.baton.bench.pgbench;
