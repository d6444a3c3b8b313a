/**
 * Runs handlers: resolves the kind, reads the args, enforces the timeout, turns the outcome into a
 * fenced finish, and interrupts a handler whose job was cancelled, timed out, lost or is being
 * stopped. Not public API.
 */
package dev.baton.internal.executor;
