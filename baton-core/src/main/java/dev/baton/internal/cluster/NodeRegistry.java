package dev.baton.internal.cluster;

import dev.baton.internal.TimeSource;
import dev.baton.internal.db.ClusterStore;
import java.time.Instant;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's row in the registry: registered at start, refreshed by {@link #beat()}, removed at
 * stop. A node the leader pruned while it was alive (a long GC pause, a frozen process) registers
 * again on its next beat. Not public API.
 */
public final class NodeRegistry {
  private static final Logger log = LoggerFactory.getLogger(NodeRegistry.class);

  private final DataSource dataSource;
  private final ClusterStore store;
  private final ClusterStore.NodeRow self;
  private final TimeSource time;
  private volatile Runnable afterBeat = () -> {};

  /** The registry entry of {@code self}. */
  public NodeRegistry(
      DataSource dataSource, ClusterStore store, ClusterStore.NodeRow self, TimeSource time) {
    this.dataSource = dataSource;
    this.store = store;
    this.self = self;
    this.time = time;
  }

  /** A row for this process. */
  public static ClusterStore.NodeRow describe(String nodeId, List<String> queues) {
    String host;
    try {
      host = java.net.InetAddress.getLocalHost().getHostName();
    } catch (java.io.IOException | RuntimeException e) {
      host = "unknown";
    }
    String version = NodeRegistry.class.getPackage().getImplementationVersion();
    return new ClusterStore.NodeRow(
        nodeId,
        host,
        ProcessHandle.current().pid(),
        List.copyOf(queues),
        version != null ? version : "dev",
        Instant.now(),
        Instant.now(),
        false);
  }

  /** Registers this node. */
  public void register() {
    store.register(dataSource, self, time.dbNow());
  }

  /**
   * Runs {@code check} after each heartbeat, on the same thread: a low-frequency look at the
   * cluster that needs no thread of its own. It must not throw.
   */
  public void afterBeat(Runnable check) {
    this.afterBeat = check;
  }

  /** Refreshes this node's heartbeat; registers again if the row was pruned. */
  public void beat() {
    if (!store.beat(dataSource, self.id(), time.dbNow())) {
      log.info("node {} was pruned from the registry while alive; registering again", self.id());
      register();
    }
    afterBeat.run();
  }

  /** Removes this node's row. */
  public void deregister() {
    store.deregister(dataSource, self.id());
  }
}
