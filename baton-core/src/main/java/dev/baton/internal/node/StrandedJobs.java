package dev.baton.internal.node;

import dev.baton.internal.db.StatsStore;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warns, once per queue and kind, when jobs of a kind this node has a handler for wait in a queue
 * that no live node works (the node works {@code email}, the jobs went to {@code default}): such
 * jobs wait forever while everything looks healthy. Run after each registry heartbeat of this node
 * (every node heartbeat interval, 10 s by default) on the cluster thread, never on a claim or a
 * handler's path; one bounded read per run (see {@link StatsStore#strandedKinds}). A finding is
 * reported when two runs in a row see it, so a node that is just starting for that queue is not
 * reported. Not public API.
 */
final class StrandedJobs implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(StrandedJobs.class);
  private static final Duration QUERY_TIMEOUT = Duration.ofSeconds(5);

  private final DataSource dataSource;
  private final StatsStore store;
  private final List<String> kinds;
  private final List<String> worked;
  private final Duration nodeTtl;
  private Set<String> seenLastRun = Set.of(); // "queue\0kind", confined to the cluster thread
  private final Set<String> warned = new HashSet<>();

  StrandedJobs(
      DataSource dataSource,
      StatsStore store,
      List<String> kinds,
      List<String> worked,
      Duration nodeTtl) {
    this.dataSource = dataSource;
    this.store = store;
    this.kinds = List.copyOf(new TreeSet<>(kinds));
    this.worked = List.copyOf(new TreeSet<>(worked));
    this.nodeTtl = nodeTtl;
  }

  @Override
  public void run() {
    List<StatsStore.StrandedKind> found;
    try {
      found = store.strandedKinds(dataSource, kinds, nodeTtl, QUERY_TIMEOUT);
    } catch (RuntimeException e) {
      log.debug("cannot look for jobs waiting in queues no node works", e);
      return;
    }
    Set<String> seen = new HashSet<>();
    for (StatsStore.StrandedKind s : found) {
      String key = s.queue() + '\0' + s.kind();
      seen.add(key);
      if (seenLastRun.contains(key) && warned.add(key)) {
        log.warn(
            "jobs of kind {} wait in queue {} ({} seen), which no live node works: they will not"
                + " run. This node has a handler for {} and works queues {}; add queue {} to a"
                + " node's queues, or enqueue {} jobs to a queue a node works (said once per queue"
                + " and kind)",
            s.kind(),
            s.queue(),
            s.seen(),
            s.kind(),
            worked,
            s.queue(),
            s.kind());
      }
    }
    seenLastRun = seen;
  }
}
