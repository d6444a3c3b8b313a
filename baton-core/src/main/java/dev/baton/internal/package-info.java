/**
 * What the internal packages share: the start/stop contract of long-lived components ({@link
 * dev.baton.internal.ServiceState}), the clocks the services and their SQL use ({@link
 * dev.baton.internal.TimeSource}), and the bridge from the public packages to a client's internals
 * ({@link dev.baton.internal.ClientAccess}). Not public API.
 */
package dev.baton.internal;
