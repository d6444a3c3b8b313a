package dev.baton.internal.maintenance;

import dev.baton.internal.TimeSource;
import dev.baton.internal.db.Leadership;
import dev.baton.internal.db.MaintenanceStore;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes nodes from the registry whose heartbeat is older than {@code nodeTtl} (default 60 s).
 * Their running jobs are left alone: each is rescued when its own lease runs out. Leader only,
 * fenced by term. Runs every {@code nodeHeartbeatInterval}. Not public API.
 */
public final class NodePruner implements MaintenanceService {
  private static final Logger log = LoggerFactory.getLogger(NodePruner.class);

  private final DataSource dataSource;
  private final MaintenanceStore store;
  private final TimeSource time;
  private final Duration ttl;

  /** A pruner of nodes silent for longer than {@code ttl}. */
  public NodePruner(DataSource dataSource, MaintenanceStore store, TimeSource time, Duration ttl) {
    this.dataSource = dataSource;
    this.store = store;
    this.time = time;
    this.ttl = ttl;
  }

  @Override
  public String name() {
    return "node-pruner";
  }

  @Override
  public int runOnce(Leadership lead) {
    List<String> pruned = store.pruneNodes(dataSource, lead, time.dbNow(), ttl);
    if (!pruned.isEmpty()) {
      log.info("pruned {} nodes with no heartbeat for {}: {}", pruned.size(), ttl, pruned);
    }
    return pruned.size();
  }
}
