/**
 * Admission control: a client's view of which queues have a backlog cap ({@link
 * dev.baton.internal.admission.BacklogCaps}), so that the enqueue of a queue without one runs no
 * extra statement, and a cap set by any process is checked by every client within a bounded time.
 * The cap itself is checked in the database ({@link dev.baton.internal.db.BacklogCapStore}). Not
 * public API.
 */
package dev.baton.internal.admission;
