package dev.baton.internal;

import dev.baton.internal.held.NodeCounters;
import javax.sql.DataSource;

/**
 * What core's public packages outside {@code dev.baton} (the metrics binder) read of a client that
 * is not public API: the pool it was built on and its node's live counters, whose listener slot the
 * binder fills. A client hands it out; it holds no reference to the client. Not public API.
 *
 * @param pool the application's pool, as the client was given it
 * @param counters the node's outcome counters and executor listener slot
 */
public record ClientInternals(DataSource pool, NodeCounters counters) {}
