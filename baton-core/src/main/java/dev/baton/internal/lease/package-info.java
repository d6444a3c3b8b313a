/**
 * Leases and fencing on the holder's side: the batched heartbeat that extends every held lease and
 * detects lost ones. Not public API.
 *
 * <p>Invariant: a holder writes a job only with {@code WHERE id = ? AND fence = ? AND state =
 * 'running'}. The fence comes from a sequence at each claim, so a later claim always has a higher
 * fence; once a job is rescued and re-claimed, every write of its previous holder matches no row. A
 * holder that sees zero rows drops its result, counts it as fenced, and interrupts its handler.
 *
 * <p>Invariant: a holder trusts a lease only as long as it can prove it. The trust window of each
 * held job (its last confirmed lease, measured on the monotonic clock from when the extension was
 * sent) is checked on a timer of its own, so a beat that blocks on a connection that stopped
 * answering cannot keep a handler running into another holder's attempt.
 */
package dev.baton.internal.lease;
