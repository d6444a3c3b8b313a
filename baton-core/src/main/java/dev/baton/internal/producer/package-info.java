/**
 * The per-queue claim loop and its slot accounting, and the node's one fallback poll ({@link
 * dev.baton.internal.producer.Poller}) that wakes the producers of queues with available jobs. Not
 * public API.
 *
 * <p>States of a slot: free, then claimed (the job is running under this node's lease and fence),
 * then free again when the handler returns; the job's finish is written later by the completer,
 * while the job stays held and heartbeated.
 */
package dev.baton.internal.producer;
