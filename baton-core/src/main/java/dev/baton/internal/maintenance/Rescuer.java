package dev.baton.internal.maintenance;

import dev.baton.internal.TimeSource;
import dev.baton.internal.db.ClusterStore;
import dev.baton.internal.db.Leadership;
import dev.baton.internal.db.MaintenanceStore;
import dev.baton.internal.held.NodeCounters;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Returns running jobs whose holder stopped heartbeating (lease expired) or overran its deadline to
 * the queue: {@code retryable}, or {@code discarded} at max attempts, or {@code cancelled} when a
 * cancel was asked for; each with an error entry saying which ("lease expired on node X" /
 * "deadline exceeded on node X"), and {@code rescue_count} in metadata. A lost lease gives the
 * attempt back (the handler did not fail); a passed deadline counts as a failed attempt. A job at
 * its {@code maxRescues}-th rescue is discarded, whatever its attempts. Rows are picked with SKIP
 * LOCKED and re-checked under the lock, so a job its holder finished meanwhile is untouched; a job
 * is never rescued before its lease ran out by the database clock, unless its node is gone. Leader
 * only, fenced by term.
 *
 * <p>Gone nodes: a node that works queues holds a session lock on its heartbeat connection, and a
 * killed process's sessions end at once. A registered node whose lock was held, and then is free on
 * every pass for {@link GoneNodes#grace()}, is gone: its running jobs claimed before its lock was
 * first seen free are rescued without waiting for their leases. The lock was held if this rescuer
 * saw it held since the server started and since its own last failed pass, or if the node's row
 * says it took it on this server (its start time and WAL timeline, so neither a restart nor a
 * promoted standby, where live nodes take their locks again only when their heartbeats notice,
 * counts): a node that died before any leader saw it alive (the whole cluster restarted) is judged
 * too. A partitioned node's sessions linger on the server, so its jobs wait for their leases.
 *
 * <p>Settings: interval {@code maintenanceInterval} (default 1 s); batch {@value
 * #DEFAULT_BATCH_SIZE} rows per statement, repeated until a short page. Not public API.
 */
public final class Rescuer implements MaintenanceService {
  private static final Logger log = LoggerFactory.getLogger(Rescuer.class);

  /**
   * How long a node's session lock, seen held, must then be seen free before the node is gone: 2 s,
   * several times what a live node needs to take it again on a fresh connection.
   */
  public static final Duration GONE_GRACE = Duration.ofSeconds(2);

  /** Rows rescued per statement. */
  public static final int DEFAULT_BATCH_SIZE = 1_000;

  private final DataSource dataSource;
  private final MaintenanceStore store;
  private final NodeCounters counters;
  private final TimeSource time;
  private final int batchSize;
  private final GoneNodes goneNodes; // null: leases only
  private final int maxRescues;

  // Confined to the maintenance thread.
  private final Set<String> seenHeld = new HashSet<>();
  private final Map<String, Long> freeSinceNanos = new HashMap<>();
  private final Map<String, Instant> freeSinceDb = new HashMap<>();
  private Instant serverStartedAt;
  private Leadership judgedUnder;

  /**
   * How gone nodes are found.
   *
   * @param store reads the nodes' session locks
   * @param selfId this node, never judged by itself
   * @param grace how long a lock seen held must then be seen free before its node is gone
   */
  public record GoneNodes(ClusterStore store, String selfId, Duration grace) {}

  /**
   * What a rescuer rescues.
   *
   * @param batchSize the most rows one statement rescues
   * @param maxRescues the rescue at which a job is discarded instead
   * @param goneNodes how gone nodes are found; null: expired leases only
   */
  public record Settings(int batchSize, int maxRescues, GoneNodes goneNodes) {}

  /** A rescuer of expired leases only. */
  public Rescuer(
      DataSource dataSource,
      MaintenanceStore store,
      NodeCounters counters,
      TimeSource time,
      int batchSize) {
    this(
        dataSource,
        store,
        counters,
        time,
        new Settings(batchSize, dev.baton.BatonConfig.DEFAULT_MAX_RESCUES, null));
  }

  /**
   * A rescuer of expired leases and, with {@link Settings#goneNodes()}, of the jobs of gone nodes,
   * which discards a job at its {@link Settings#maxRescues()}-th rescue.
   */
  public Rescuer(
      DataSource dataSource,
      MaintenanceStore store,
      NodeCounters counters,
      TimeSource time,
      Settings settings) {
    this.maxRescues = settings.maxRescues();
    this.dataSource = dataSource;
    this.store = store;
    this.counters = counters;
    this.time = time;
    this.batchSize = settings.batchSize();
    this.goneNodes = settings.goneNodes();
  }

  @Override
  public String name() {
    return "rescuer";
  }

  /**
   * One pass: rescues every job of a gone node and every expired job, in batches. Returns how many
   * were rescued.
   */
  @Override
  public int runOnce(Leadership lead) {
    try {
      return rescueGone(lead) + rescueExpired(lead);
    } catch (RuntimeException e) {
      forgetLocks(); // the database may have restarted meanwhile: judge no node on old sightings
      throw e;
    }
  }

  private int rescueGone(Leadership lead) {
    if (goneNodes == null) {
      return 0;
    }
    if (!lead.equals(judgedUnder)) {
      forgetLocks();
      judgedUnder = lead;
    }
    List<ClusterStore.NodeLock> locks = goneNodes.store().nodeLocks(dataSource, goneNodes.selfId());
    if (locks.isEmpty()) {
      forgetLocks();
      return 0;
    }
    if (!locks.get(0).serverStartedAt().equals(serverStartedAt)) {
      forgetLocks();
      serverStartedAt = locks.get(0).serverStartedAt();
    }
    long now = System.nanoTime();
    Set<String> listed = new HashSet<>();
    List<String> gone = new ArrayList<>();
    Instant since = null;
    for (ClusterStore.NodeLock l : locks) {
      String id = l.nodeId();
      listed.add(id);
      if (l.held()) {
        seenHeld.add(id);
        freeSinceNanos.remove(id);
        freeSinceDb.remove(id);
      } else if (seenHeld.contains(id) || l.takenOnThisServer()) {
        long first = freeSinceNanos.computeIfAbsent(id, k -> now);
        Instant firstDb = freeSinceDb.computeIfAbsent(id, k -> l.checkedAt());
        if (now - first >= goneNodes.grace().toNanos()) {
          gone.add(id);
          since = since == null || firstDb.isBefore(since) ? firstDb : since;
        }
      }
    }
    seenHeld.retainAll(listed);
    freeSinceNanos.keySet().retainAll(listed);
    freeSinceDb.keySet().retainAll(listed);
    if (gone.isEmpty()) {
      return 0;
    }
    int total = 0;
    Rescues rescues = new Rescues();
    while (true) {
      List<MaintenanceStore.Rescued> page =
          store.rescueGone(dataSource, lead, time.dbNow(), maxRescues, gone, since, batchSize);
      total += page.size();
      rescues.add(page);
      if (page.size() < batchSize) {
        break;
      }
    }
    if (total > 0) {
      counters.rescued.add(total);
      log.warn(
          "rescued {} jobs of nodes {}: no database session of theirs holds their lock (gone for"
              + " at least {} ms); {}",
          total,
          gone,
          goneNodes.grace().toMillis(),
          rescues);
    }
    return total;
  }

  private void forgetLocks() {
    seenHeld.clear();
    freeSinceNanos.clear();
    freeSinceDb.clear();
    serverStartedAt = null;
  }

  private int rescueExpired(Leadership lead) {
    int total = 0;
    Rescues rescues = new Rescues();
    while (true) {
      List<MaintenanceStore.Rescued> page =
          store.rescue(dataSource, lead, time.dbNow(), maxRescues, batchSize);
      total += page.size();
      rescues.add(page);
      if (log.isDebugEnabled()) {
        for (MaintenanceStore.Rescued r : page) {
          log.debug("rescued job {} from node {} as {}", r.id(), r.attemptedBy(), r.state());
        }
      }
      if (page.size() < batchSize) {
        break;
      }
    }
    if (total > 0) {
      counters.rescued.add(total);
      log.warn("rescued {} jobs whose lease expired or deadline passed; {}", total, rescues);
    }
    return total;
  }

  /**
   * The jobs of one pass for its log line: how many went back to be run and how many were discarded
   * at their last rescue, each with the first {@link #IDS_PER_LINE} ids and the nodes that held
   * them.
   */
  private static final class Rescues {
    static final int IDS_PER_LINE = 20;
    final List<Long> again = new ArrayList<>();
    final List<Long> discarded = new ArrayList<>();
    final Set<String> nodes = new java.util.TreeSet<>();
    int againCount;
    int discardedCount;

    void add(List<MaintenanceStore.Rescued> page) {
      for (MaintenanceStore.Rescued r : page) {
        if ("discarded".equals(r.state())) {
          discardedCount++;
          if (discarded.size() < IDS_PER_LINE) {
            discarded.add(r.id());
          }
        } else {
          againCount++;
          if (again.size() < IDS_PER_LINE) {
            again.add(r.id());
          }
        }
        if (r.attemptedBy() != null && nodes.size() < IDS_PER_LINE) {
          nodes.add(r.attemptedBy());
        }
      }
    }

    @Override
    public String toString() {
      return againCount
          + " to run again (jobs "
          + ids(again, againCount)
          + "), "
          + discardedCount
          + " discarded at their last rescue (jobs "
          + ids(discarded, discardedCount)
          + "); held by nodes "
          + nodes;
    }

    private static String ids(List<Long> ids, int count) {
      String s = ids.toString();
      return count > ids.size() ? s + " and " + (count - ids.size()) + " more" : s;
    }
  }
}
