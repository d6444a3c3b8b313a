/** Batched, fenced writing of finished jobs (the completer). Not public API. */
package dev.baton.internal.completer;
