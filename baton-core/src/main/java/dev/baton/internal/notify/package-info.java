/** The one LISTEN connection of a client and its fan-out to producers. Not public API. */
package dev.baton.internal.notify;
