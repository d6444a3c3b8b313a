/**
 * The leader's maintenance passes, one class each: the rescuer of expired leases, the scheduler of
 * due jobs, the cleaner of finished jobs past retention, the periodic-job enqueuer and the node
 * pruner. Each has {@code runOnce(Leadership)} for tests and is driven by a {@link
 * dev.baton.internal.TimeSource}; every write is fenced by the leader's term. Not public API.
 */
package dev.baton.internal.maintenance;
