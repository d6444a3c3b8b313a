/**
 * The node runtime: what a client that works queues runs. {@link dev.baton.internal.node.Node}
 * assembles the services (notifier, cluster, heartbeater, completer, producers, poller) from the
 * config, handlers and schedules the client hands it, starts them in that order, and stops them in
 * the reverse one, awaiting the handlers once claiming has stopped. Only the client ({@code
 * dev.baton.Baton}) uses this package, and it uses nothing of the client. Not public API.
 */
package dev.baton.internal.node;
