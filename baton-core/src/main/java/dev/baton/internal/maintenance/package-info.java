/**
 * Maintenance passes, one class each: the rescuer of expired leases and the scheduler of due jobs.
 * Each has {@code runOnce()} for tests. Until leader election lands they run on every node, which
 * is safe: every row they touch is picked with SKIP LOCKED and re-checked under its lock. Not
 * public API.
 */
package dev.baton.internal.maintenance;
