/**
 * What the internal packages share: the shape of a node's long-lived services ({@link
 * dev.baton.internal.Service}) and their start/stop contract ({@link
 * dev.baton.internal.ServiceState}), the outage reporter they share ({@link
 * dev.baton.internal.Outage}), the clocks the services and their SQL use ({@link
 * dev.baton.internal.TimeSource}), and what the public packages read of a client's internals
 * ({@link dev.baton.internal.ClientInternals}). Not public API.
 */
package dev.baton.internal;
