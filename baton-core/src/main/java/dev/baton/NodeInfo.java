package dev.baton;

import java.time.Instant;
import java.util.List;

/**
 * A client registered in the cluster's node registry.
 *
 * @param id the node id ({@link BatonConfig#nodeId()})
 * @param host the host name it runs on
 * @param pid its process id
 * @param queues the queues it works
 * @param version the Baton version it runs
 * @param startedAt when it registered
 * @param heartbeatAt its last registry heartbeat (database clock)
 */
public record NodeInfo(
    String id,
    String host,
    long pid,
    List<String> queues,
    String version,
    Instant startedAt,
    Instant heartbeatAt) {}
