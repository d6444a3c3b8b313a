/**
 * The quickstart example: a shop commits orders and enqueues their confirmation emails in the same
 * transaction, and a Baton client records each email exactly once through the receiver-side inbox.
 * Run it with {@code ./quickstart} from the repository root.
 */
package dev.baton.examples.quickstart;
