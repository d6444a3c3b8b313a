/**
 * The cluster: leader election by a lease row with a term ({@link
 * dev.baton.internal.cluster.Elector}), the node registry, and the threads that run maintenance
 * while this node leads ({@link dev.baton.internal.cluster.Cluster}). Not public API.
 */
package dev.baton.internal.cluster;
