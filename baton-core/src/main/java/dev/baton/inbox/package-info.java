/**
 * Receiver-side dedupe: {@link dev.baton.inbox.Inbox} lets a service on PostgreSQL apply each
 * idempotency key at most once and refuse stale fences, inside its own transaction. Public API.
 */
package dev.baton.inbox;
