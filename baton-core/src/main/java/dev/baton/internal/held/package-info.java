/**
 * The jobs a node holds and what it counts of them: each held job's state ({@link
 * dev.baton.internal.held.RunningJob}), the set of them ({@link dev.baton.internal.held.HeldJobs}),
 * why a handler is stopped, the node's outcome counters, and the queue finishes go to. Shared by
 * the worker-side services (producer, executor, completer, lease) and the metrics binder; depends
 * on {@code internal.db} only, so that none of those services depends on another through it. Not
 * public API.
 */
package dev.baton.internal.held;
