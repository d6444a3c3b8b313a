/**
 * {@code baton lab}: the same workload drained by several claim strategies (naive, optimistic,
 * pessimistic, {@code SKIP LOCKED}) in throwaway tables of a schema of its own, with the figures
 * that tell them apart (duplicate runs, lost jobs, lost-race retries, row-lock waits, throughput).
 * Part of the command line, not a library API: its types are public only for {@code
 * dev.baton.cli.LabCommand}.
 */
package dev.baton.cli.lab;
