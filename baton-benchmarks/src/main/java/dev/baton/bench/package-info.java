/**
 * A small benchmark entry point for Baton, {@link dev.baton.bench.BenchMain}: drain rate, pickup
 * latency and enqueue rate against a PostgreSQL server (given, or embedded). It prints figures and
 * the command that reproduces them; it never asserts a time. Uses only Baton's public API.
 */
package dev.baton.bench;
