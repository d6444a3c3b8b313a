package dev.baton;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The settings of one {@link Baton} client. Immutable; built with {@link #builder()}, which checks
 * each value when it is set and the combination in {@link Builder#build()}, and throws {@link
 * InvalidConfigException} naming the property, what was expected and what was received.
 */
public final class BatonConfig {

  /** Schema used when none is set: {@code baton}. */
  public static final String DEFAULT_SCHEMA = "baton";

  /** Lease of a running job when none is set: 30 seconds. */
  public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);

  /** Timeout of a job whose kind has none of its own: 5 minutes. */
  public static final Duration DEFAULT_JOB_TIMEOUT = Duration.ofMinutes(5);

  /** Fallback poll interval when none is set: 1 second (jittered by +-10%). */
  public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(1);

  /** Interval of the rescue and schedule passes when none is set: 1 second. */
  public static final Duration DEFAULT_MAINTENANCE_INTERVAL = Duration.ofSeconds(1);

  /**
   * Lease of the leader role when none is set: 10 seconds, or three quarters of the job lease when
   * that is shorter, so that a leader that dies is replaced within about one job lease and the jobs
   * it held are rescued within about the lease plus a maintenance interval. The leader renews it
   * every third of that.
   */
  public static final Duration DEFAULT_LEADER_TTL = Duration.ofSeconds(10);

  /**
   * How many times a job may be rescued (its lease lost, its node gone, its deadline passed) before
   * the leader discards it: 20. Rescues do not use up {@code maxAttempts}, which counts handler
   * failures.
   */
  public static final int DEFAULT_MAX_RESCUES = 20;

  /** Interval of a node's registry heartbeat, and of the leader's pruning pass: 10 seconds. */
  public static final Duration DEFAULT_NODE_HEARTBEAT_INTERVAL = Duration.ofSeconds(10);

  /** A node with no heartbeat for this long is pruned from the registry: 60 seconds. */
  public static final Duration DEFAULT_NODE_TTL = Duration.ofSeconds(60);

  /** Interval of the cleaner's passes: 30 seconds. */
  public static final Duration DEFAULT_CLEAN_INTERVAL = Duration.ofSeconds(30);

  /** Rows the cleaner deletes per statement: 1,000. */
  public static final int DEFAULT_CLEAN_BATCH_SIZE = 1_000;

  /** How long completed jobs are kept: 24 hours. */
  public static final Duration DEFAULT_COMPLETED_RETENTION = Duration.ofHours(24);

  /** How long cancelled and discarded jobs are kept: 7 days. */
  public static final Duration DEFAULT_FAILED_RETENTION = Duration.ofDays(7);

  /** How long {@link Baton#stop()} waits for running handlers: 10 seconds. */
  public static final Duration DEFAULT_STOP_TIMEOUT = Duration.ofSeconds(10);

  /** Largest args accepted, as serialised JSON: 1 MiB. */
  public static final int DEFAULT_MAX_ARGS_BYTES = 1 << 20;

  /** Largest metadata accepted, as serialised JSON: 64 KiB. */
  public static final int DEFAULT_MAX_METADATA_BYTES = 64 << 10;

  /** Most finishes written in one statement: 2,000. */
  public static final int DEFAULT_COMPLETER_BATCH_SIZE = 2_000;

  /**
   * Finishes that may wait to be written before handlers block: 10,000, and never more than what
   * the client may hold, each queue's concurrency plus {@link #prefetchOf(int)} (at least 64).
   */
  public static final int DEFAULT_COMPLETER_CAPACITY = 10_000;

  /**
   * How long a completion may wait for the next claim to carry it before the completer writes it on
   * its own: 2 ms.
   */
  public static final Duration DEFAULT_COMPLETER_FLUSH_DELAY = Duration.ofMillis(2);

  /**
   * Most jobs each claim stream of a queue holds beyond its free slots when the claim depth adapts
   * (no {@link Builder#prefetch(int)} given): 2,048.
   */
  public static final int ADAPTIVE_PREFETCH_LIMIT = 2_048;

  /** The highest cluster-wide concurrency limit a queue may be given: 1,000,000 jobs. */
  public static final int MAX_CONCURRENCY_LIMIT = 1_000_000;

  /** The longest period a rate limit may have: 1 day. */
  public static final Duration MAX_RATE_PERIOD = Duration.ofDays(1);

  /**
   * A queue's concurrency limit per key, as {@link Builder#concurrencyLimitPerKey} sets it.
   *
   * @param argsField the top-level field of the jobs' args whose text is a job's key
   * @param limit the most jobs of one key running at once across the cluster
   */
  public record KeyLimit(String argsField, int limit) {}

  /**
   * A queue's rate limit, as {@link Builder#rateLimit} or {@link Builder#rateLimitPerKey} sets it.
   *
   * @param limit the most starts in any window of {@code period}, of the whole queue or per key
   * @param period the window
   * @param argsField the top-level field of the jobs' args whose text is a job's key, when the rate
   *     holds per key; null when it holds for the queue as a whole
   */
  public record RateLimit(int limit, Duration period, String argsField) {
    /**
     * A rate limit of the queue as a whole: {@code limit} starts in any window of {@code period}.
     */
    public RateLimit(int limit, Duration period) {
      this(limit, period, null);
    }
  }

  private final String schema;
  private final String nodeIdGiven; // null: the default, computed when first asked for
  private volatile String nodeId;
  private final Map<String, QueueConfig> queues;
  private final Map<String, Integer> concurrencyLimits;
  private final Map<String, KeyLimit> keyLimits;
  private final Map<String, RateLimit> rateLimits;
  private final Map<String, KindConfig> kinds;
  private final Duration lease;
  private final Duration heartbeatInterval;
  private final Duration heartbeatIntervalGiven; // null: a third of the lease
  private final Duration jobTimeout;
  private final Duration pollInterval;
  private final boolean pollOnly;
  private final boolean claimOnEnqueue;
  private final Duration maintenanceInterval;
  private final boolean maintenanceEnabled;
  private final Duration leaderTtl;
  private final Duration leaderTtlGiven; // null: derived from the lease
  private final int maxRescues;
  private final Duration nodeHeartbeatInterval;
  private final Duration nodeTtl;
  private final Duration cleanInterval;
  private final int cleanBatchSize;
  private final Duration completedRetention;
  private final Duration cancelledRetention;
  private final Duration discardedRetention;
  private final boolean archiveFinished;
  private final Duration stopTimeout;
  private final int maxArgsBytes;
  private final int maxMetadataBytes;
  private final boolean allowUnknownKinds;
  private final Set<String> knownKinds;
  private final RetryPolicy retryPolicy;
  private final int completerBatchSize;
  private final int completerCapacity;
  private final Duration completerFlushDelay;
  private final Boolean virtualThreads;
  private final Integer prefetch;

  private BatonConfig(Builder b) {
    this.schema = b.schema;
    this.nodeIdGiven = b.nodeId;
    this.queues = Collections.unmodifiableMap(new LinkedHashMap<>(b.queues));
    this.concurrencyLimits = Collections.unmodifiableMap(new LinkedHashMap<>(b.concurrencyLimits));
    this.keyLimits = Collections.unmodifiableMap(new LinkedHashMap<>(b.keyLimits));
    this.rateLimits = Collections.unmodifiableMap(new LinkedHashMap<>(b.rateLimits));
    this.kinds = Collections.unmodifiableMap(new LinkedHashMap<>(b.kinds));
    this.lease = b.lease;
    this.heartbeatInterval =
        b.heartbeatInterval != null ? b.heartbeatInterval : b.lease.dividedBy(3);
    this.heartbeatIntervalGiven = b.heartbeatInterval;
    this.jobTimeout = b.jobTimeout;
    this.pollInterval = b.pollInterval;
    this.pollOnly = b.pollOnly;
    this.claimOnEnqueue = b.claimOnEnqueue;
    this.maintenanceInterval = b.maintenanceInterval;
    this.maintenanceEnabled = b.maintenanceEnabled;
    this.leaderTtl = b.leaderTtl != null ? b.leaderTtl : defaultLeaderTtl(b.lease);
    this.leaderTtlGiven = b.leaderTtl;
    this.maxRescues = b.maxRescues;
    this.nodeHeartbeatInterval = b.nodeHeartbeatInterval;
    this.nodeTtl = b.nodeTtl;
    this.cleanInterval = b.cleanInterval;
    this.cleanBatchSize = b.cleanBatchSize;
    this.completedRetention = b.completedRetention;
    this.cancelledRetention = b.cancelledRetention;
    this.discardedRetention = b.discardedRetention;
    this.archiveFinished = b.archiveFinished;
    this.stopTimeout = b.stopTimeout;
    this.maxArgsBytes = b.maxArgsBytes;
    this.maxMetadataBytes = b.maxMetadataBytes;
    this.allowUnknownKinds = b.allowUnknownKinds;
    this.knownKinds = Collections.unmodifiableSet(new LinkedHashSet<>(b.knownKinds));
    this.retryPolicy = b.retryPolicy;
    this.completerBatchSize = b.completerBatchSize;
    this.completerCapacity = b.completerCapacity;
    this.completerFlushDelay = b.completerFlushDelay;
    this.virtualThreads = b.virtualThreads;
    this.prefetch = b.prefetch;
  }

  /** A builder with every default. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * A builder holding every setting of this config, to change some and build another. Settings that
   * this config derived from others (the heartbeat interval and the leader's lease from the lease)
   * stay derived unless they were set; the node id is this config's, when it was set.
   */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.schema = schema;
    b.nodeId = nodeIdGiven;
    b.queues.putAll(queues);
    b.concurrencyLimits.putAll(concurrencyLimits);
    b.keyLimits.putAll(keyLimits);
    b.rateLimits.putAll(rateLimits);
    b.kinds.putAll(kinds);
    b.lease = lease;
    b.heartbeatInterval = heartbeatIntervalGiven;
    b.jobTimeout = jobTimeout;
    b.pollInterval = pollInterval;
    b.pollOnly = pollOnly;
    b.claimOnEnqueue = claimOnEnqueue;
    b.maintenanceInterval = maintenanceInterval;
    b.maintenanceEnabled = maintenanceEnabled;
    b.leaderTtl = leaderTtlGiven;
    b.maxRescues = maxRescues;
    b.nodeHeartbeatInterval = nodeHeartbeatInterval;
    b.nodeTtl = nodeTtl;
    b.cleanInterval = cleanInterval;
    b.cleanBatchSize = cleanBatchSize;
    b.completedRetention = completedRetention;
    b.cancelledRetention = cancelledRetention;
    b.discardedRetention = discardedRetention;
    b.archiveFinished = archiveFinished;
    b.stopTimeout = stopTimeout;
    b.maxArgsBytes = maxArgsBytes;
    b.maxMetadataBytes = maxMetadataBytes;
    b.allowUnknownKinds = allowUnknownKinds;
    b.knownKinds.addAll(knownKinds);
    b.retryPolicy = retryPolicy;
    b.completerBatchSize = completerBatchSize;
    b.completerCapacity = completerCapacity;
    b.completerFlushDelay = completerFlushDelay;
    b.virtualThreads = virtualThreads;
    b.prefetch = prefetch;
    return b;
  }

  /** The config with every default: schema {@code baton}, no queues worked. */
  public static BatonConfig defaults() {
    return builder().build();
  }

  /** The schema holding Baton's tables. */
  public String schema() {
    return schema;
  }

  /**
   * This client's node id, recorded as {@code attempted_by} on the jobs it claims: the one set, or
   * else the default, computed when first asked for (see {@link Builder#nodeId(String)}).
   */
  public String nodeId() {
    String id = nodeId;
    if (id == null) {
      synchronized (this) {
        id = nodeId;
        if (id == null) {
          id = nodeIdGiven != null ? nodeIdGiven : defaultNodeId();
          nodeId = id;
        }
      }
    }
    return id;
  }

  /** The queues this client works, by name, in the order they were added. */
  public Map<String, QueueConfig> queues() {
    return queues;
  }

  /**
   * The cluster-wide concurrency limits this client sets when it starts, by queue; empty by
   * default. See {@link Builder#concurrencyLimit}.
   */
  public Map<String, Integer> concurrencyLimits() {
    return concurrencyLimits;
  }

  /**
   * The concurrency limits per key this client sets when it starts, by queue; empty by default. See
   * {@link Builder#concurrencyLimitPerKey}.
   */
  public Map<String, KeyLimit> concurrencyLimitsPerKey() {
    return keyLimits;
  }

  /**
   * The rate limits this client sets when it starts, of the whole queue or per key, by queue; empty
   * by default. See {@link Builder#rateLimit} and {@link Builder#rateLimitPerKey}.
   */
  public Map<String, RateLimit> rateLimits() {
    return rateLimits;
  }

  /**
   * The settings of kinds that differ from this config's, by kind, in the order they were added:
   * {@link Builder#kind(String, KindConfig)}.
   */
  public Map<String, KindConfig> kinds() {
    return kinds;
  }

  /** The settings of {@code kind} in this config; {@link KindConfig#none()} when it has none. */
  public KindConfig kind(String kind) {
    return kinds.getOrDefault(kind, KindConfig.none());
  }

  /** How long a claim holds a job without a heartbeat. */
  public Duration lease() {
    return lease;
  }

  /** How often the leases of running jobs are extended. */
  public Duration heartbeatInterval() {
    return heartbeatInterval;
  }

  /** The timeout of a job whose kind has no timeout of its own. */
  public Duration jobTimeout() {
    return jobTimeout;
  }

  /** The fallback poll interval. */
  public Duration pollInterval() {
    return pollInterval;
  }

  /** Whether LISTEN/NOTIFY is off and the client only polls. */
  public boolean pollOnly() {
    return pollOnly;
  }

  /**
   * Whether a job this client enqueues on its own pool, for a queue it works with a slot free, is
   * claimed by this client in the insert itself (see {@link Builder#claimOnEnqueue(boolean)}).
   */
  public boolean claimOnEnqueue() {
    return claimOnEnqueue;
  }

  /** The interval of the rescue and schedule passes. */
  public Duration maintenanceInterval() {
    return maintenanceInterval;
  }

  /** Whether this client runs the rescue and schedule passes. */
  public boolean maintenanceEnabled() {
    return maintenanceEnabled;
  }

  private static Duration defaultLeaderTtl(Duration lease) {
    Duration fromLease = lease.multipliedBy(3).dividedBy(4);
    return fromLease.compareTo(DEFAULT_LEADER_TTL) < 0 ? fromLease : DEFAULT_LEADER_TTL;
  }

  /** How many rescues of a job the leader allows: its last one discards the job. */
  public int maxRescues() {
    return maxRescues;
  }

  /** Lease of the leader role. */
  public Duration leaderTtl() {
    return leaderTtl;
  }

  /** Interval of this node's registry heartbeat. */
  public Duration nodeHeartbeatInterval() {
    return nodeHeartbeatInterval;
  }

  /** How long a node may miss heartbeats before the leader prunes it from the registry. */
  public Duration nodeTtl() {
    return nodeTtl;
  }

  /** Interval of the cleaner's passes. */
  public Duration cleanInterval() {
    return cleanInterval;
  }

  /** Rows the cleaner deletes per statement. */
  public int cleanBatchSize() {
    return cleanBatchSize;
  }

  /** How long completed jobs are kept before the cleaner deletes them. */
  public Duration completedRetention() {
    return completedRetention;
  }

  /** How long cancelled jobs are kept. */
  public Duration cancelledRetention() {
    return cancelledRetention;
  }

  /** How long discarded jobs are kept. */
  public Duration discardedRetention() {
    return discardedRetention;
  }

  /** Whether the cleaner moves finished jobs to {@code job_archive} instead of deleting them. */
  public boolean archiveFinished() {
    return archiveFinished;
  }

  /** How long {@link Baton#stop()} waits for running handlers before interrupting them. */
  public Duration stopTimeout() {
    return stopTimeout;
  }

  /** The largest args accepted at enqueue, in bytes of serialised JSON. */
  public int maxArgsBytes() {
    return maxArgsBytes;
  }

  /** The largest metadata accepted at enqueue, in bytes of serialised JSON. */
  public int maxMetadataBytes() {
    return maxMetadataBytes;
  }

  /** Whether a job of a kind without a handler on this client may be enqueued. */
  public boolean allowUnknownKinds() {
    return allowUnknownKinds;
  }

  /** Kinds this client may enqueue without handling them itself. */
  public Set<String> knownKinds() {
    return knownKinds;
  }

  /** The retry policy for failed attempts. */
  public RetryPolicy retryPolicy() {
    return retryPolicy;
  }

  /** The most finishes written in one statement. */
  public int completerBatchSize() {
    return completerBatchSize;
  }

  /** Finishes that may wait to be written before handlers block. */
  public int completerCapacity() {
    return completerCapacity;
  }

  /** How long a completion may wait for the next claim to carry it. */
  public Duration completerFlushDelay() {
    return completerFlushDelay;
  }

  /** Whether handlers run on virtual threads: true, false, or null for "on Java 21+". */
  public Boolean virtualThreads() {
    return virtualThreads;
  }

  /**
   * Jobs each queue claims ahead of its free slots while it has a backlog, as fixed by {@link
   * Builder#prefetch(int)}; empty for the default, a depth that adapts to the queue's jobs (see
   * there).
   */
  public OptionalInt prefetch() {
    return prefetch == null ? OptionalInt.empty() : OptionalInt.of(prefetch);
  }

  /**
   * The most jobs each claim stream of a queue holds beyond its free slots: {@link #prefetch()}
   * when set, else {@link #ADAPTIVE_PREFETCH_LIMIT}, the bound of the adaptive depth. The {@code
   * concurrency} argument is the queue's; the bound does not depend on it today.
   */
  public int prefetchOf(int concurrency) {
    return prefetch == null ? ADAPTIVE_PREFETCH_LIMIT : prefetch;
  }

  // Default node ids handed out in this JVM; the first is the host slot alone.
  private static final AtomicInteger DEFAULT_IDS = new AtomicInteger();

  private static String defaultNodeId() {
    int n = DEFAULT_IDS.incrementAndGet();
    String id = HostSlot.ID + (n == 1 ? "" : "-" + n);
    return id.length() > 128 ? id.substring(id.length() - 128) : id;
  }

  /**
   * This process's slot on its host: the lowest n from 1 to {@value #SLOTS} whose file {@code
   * baton-node-<n>.lock} in {@code java.io.tmpdir} this process holds the OS lock of. The lock is
   * taken when the first default node id is asked for and held until the process exits; the OS
   * releases it then, even after a kill -9. So two processes on one host never share a slot, and a
   * process that restarts takes its slot again when no other took it meanwhile. Without a slot (no
   * writable temporary directory, every slot held) the id ends in the process id and a random
   * number instead, as it did before slots.
   */
  private static final class HostSlot {
    static final int SLOTS = 64;
    static final String ID = compute();

    @SuppressWarnings("unused") // held open for the life of the process: it is the lock
    private static FileChannel held;

    private static String compute() {
      String host;
      try {
        host = InetAddress.getLocalHost().getHostName();
      } catch (Exception e) {
        host = "unknown-host";
      }
      host = host.replaceAll("[^\\x21-\\x7e]", "-");
      try {
        Path dir = Path.of(System.getProperty("java.io.tmpdir"));
        for (int slot = 1; slot <= SLOTS; slot++) {
          if (tryHold(dir.resolve("baton-node-" + slot + ".lock"))) {
            return host + "-" + slot;
          }
        }
      } catch (RuntimeException e) {
        // no usable temporary directory: fall through to the per-process id
      }
      String pid = Long.toString(ProcessHandle.current().pid());
      String suffix = Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0x10000));
      return host + "-" + pid + "-" + suffix;
    }

    private static boolean tryHold(Path file) {
      FileChannel ch = null;
      try {
        ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock = ch.tryLock();
        if (lock != null) {
          held = ch;
          return true;
        }
      } catch (IOException | OverlappingFileLockException | SecurityException e) {
        // another user's file, or held in this process: not ours
      }
      if (ch != null) {
        try {
          ch.close();
        } catch (IOException e) {
          // nothing held
        }
      }
      return false;
    }
  }

  /** Builds a {@link BatonConfig}. Not thread-safe. */
  public static final class Builder {
    private String schema = DEFAULT_SCHEMA;
    private String nodeId;
    private final Map<String, QueueConfig> queues = new LinkedHashMap<>();
    private final Map<String, Integer> concurrencyLimits = new LinkedHashMap<>();
    private final Map<String, KeyLimit> keyLimits = new LinkedHashMap<>();
    private final Map<String, RateLimit> rateLimits = new LinkedHashMap<>();
    private final Map<String, KindConfig> kinds = new LinkedHashMap<>();
    private Duration lease = DEFAULT_LEASE;
    private Duration heartbeatInterval;
    private Duration jobTimeout = DEFAULT_JOB_TIMEOUT;
    private Duration pollInterval = DEFAULT_POLL_INTERVAL;
    private boolean pollOnly;
    private boolean claimOnEnqueue = true;
    private Duration maintenanceInterval = DEFAULT_MAINTENANCE_INTERVAL;
    private boolean maintenanceEnabled = true;
    private Duration leaderTtl; // null: DEFAULT_LEADER_TTL, or 3/4 of a shorter lease
    private int maxRescues = DEFAULT_MAX_RESCUES;
    private Duration nodeHeartbeatInterval = DEFAULT_NODE_HEARTBEAT_INTERVAL;
    private Duration nodeTtl = DEFAULT_NODE_TTL;
    private Duration cleanInterval = DEFAULT_CLEAN_INTERVAL;
    private int cleanBatchSize = DEFAULT_CLEAN_BATCH_SIZE;
    private Duration completedRetention = DEFAULT_COMPLETED_RETENTION;
    private Duration cancelledRetention = DEFAULT_FAILED_RETENTION;
    private Duration discardedRetention = DEFAULT_FAILED_RETENTION;
    private boolean archiveFinished;
    private Duration stopTimeout = DEFAULT_STOP_TIMEOUT;
    private int maxArgsBytes = DEFAULT_MAX_ARGS_BYTES;
    private int maxMetadataBytes = DEFAULT_MAX_METADATA_BYTES;
    private boolean allowUnknownKinds;
    private final Set<String> knownKinds = new LinkedHashSet<>();
    private RetryPolicy retryPolicy = RetryPolicy.exponential();
    private int completerBatchSize = DEFAULT_COMPLETER_BATCH_SIZE;
    private int completerCapacity = DEFAULT_COMPLETER_CAPACITY;
    private Duration completerFlushDelay = DEFAULT_COMPLETER_FLUSH_DELAY;
    private Boolean virtualThreads;
    private Integer prefetch;

    private Builder() {}

    /**
     * The schema of Baton's tables; default {@value BatonConfig#DEFAULT_SCHEMA}. Lower-case
     * letters, digits and underscores, starting with a letter or underscore, at most 55 characters
     * (so that its NOTIFY channel names, the name plus {@code _control}, fit in 63).
     */
    public Builder schema(String schema) {
      if (!isValidSchema(schema)) {
        throw new InvalidConfigException(
            "schema",
            "1-55 characters of lower-case letters, digits and _, starting with a letter or _",
            schema);
      }
      this.schema = schema;
      return this;
    }

    /**
     * This client's node id; 1-128 printable characters without spaces. Two live clients must not
     * share one. Default {@code <host>-<slot>}: the host name and the lowest slot number, from 1,
     * that no other live process on the host holds (an OS lock on the file {@code
     * baton-node-<slot>.lock} in {@code java.io.tmpdir}, held until the process exits), so that a
     * restarted process keeps its id and two processes on one host differ; a further client in the
     * same process without an id of its own gets {@code <host>-<slot>-<n>}, n counting from 2.
     * Without a usable temporary directory the default is {@code <host>-<pid>-<random>}. Set it
     * (from a pod name, say) for an id that survives moving to another host or temporary directory.
     */
    public Builder nodeId(String nodeId) {
      if (nodeId == null || !nodeId.matches("[\\x21-\\x7e]{1,128}")) {
        throw new InvalidConfigException(
            "nodeId", "1-128 printable ASCII characters without spaces", nodeId);
      }
      this.nodeId = nodeId;
      return this;
    }

    /** Works queue {@code name} with {@value QueueConfig#DEFAULT_CONCURRENCY} jobs at once. */
    public Builder queue(String name) {
      return queue(name, QueueConfig.DEFAULT_CONCURRENCY);
    }

    /** Works queue {@code name} with at most {@code concurrency} jobs at once on this client. */
    public Builder queue(String name, int concurrency) {
      QueueConfig q = new QueueConfig(name, concurrency);
      queues.put(q.name(), q);
      return this;
    }

    /**
     * Sets queue {@code queue}'s cluster-wide concurrency limit when this client starts: from then
     * on no node runs more than {@code limit} of the queue's jobs at once, counted across the whole
     * cluster (each node's own {@code concurrency} still bounds it too). Default none: a queue
     * without a limit is claimed exactly as before limits existed. The limit lives in the database
     * (the queue table), not in the client: every node obeys it whether or not its own config names
     * it, the client that starts last sets it, and {@link
     * dev.baton.admin.BatonAdmin#limitConcurrency} or {@code baton queues limit} change it at run
     * time on every node without a restart. A queue need not be worked by this client. See
     * docs/limits.md.
     *
     * @param queue a queue name
     * @param limit jobs of the queue running at once across the cluster, 0..1,000,000; 0 runs none
     * @throws InvalidConfigException if the name is not a queue name or the limit is out of range
     */
    public Builder concurrencyLimit(String queue, int limit) {
      QueueConfig.requireValidName(queue);
      if (limit < 0 || limit > MAX_CONCURRENCY_LIMIT) {
        throw new InvalidConfigException(
            "concurrencyLimit of queue \"" + queue + "\"", "0..1000000", limit);
      }
      concurrencyLimits.put(queue, limit);
      return this;
    }

    /**
     * Sets queue {@code queue}'s concurrency limit per key when this client starts: from then on no
     * node runs more than {@code limit} of the queue's jobs with one key at once, across the whole
     * cluster, the key of a job being the text of its args' top-level field {@code argsField}
     * ({@code args ->> argsField}; a job without the field has the key {@code ""}). Default none.
     * Stored in the database as {@link #concurrencyLimit} is (the client that starts last sets it);
     * {@link dev.baton.admin.BatonAdmin#limitConcurrencyPerKey} or {@code baton queues limit Q N
     * --per-key FIELD} change it at run time. A queue-wide limit may be set as well; both hold. A
     * claim of such a queue reads the queue's key index (made when the client starts, if missing
     * and its role owns the job table) for at most 32 keys at a time. See docs/limits.md.
     *
     * @param queue a queue name
     * @param argsField the args field holding the key, 1-128 characters
     * @param limit jobs of one key running at once across the cluster, 1..1,000,000
     * @throws InvalidConfigException if the name is not a queue name, the field is empty or too
     *     long, or the limit is out of range
     */
    public Builder concurrencyLimitPerKey(String queue, String argsField, int limit) {
      QueueConfig.requireValidName(queue);
      if (argsField == null || argsField.isEmpty() || argsField.length() > 128) {
        throw new InvalidConfigException(
            "concurrencyLimitPerKey field of queue \"" + queue + "\"",
            "1-128 characters",
            argsField);
      }
      if (limit < 1 || limit > MAX_CONCURRENCY_LIMIT) {
        throw new InvalidConfigException(
            "concurrencyLimitPerKey of queue \"" + queue + "\"", "1..1000000", limit);
      }
      keyLimits.put(queue, new KeyLimit(argsField, limit));
      return this;
    }

    /**
     * Sets queue {@code queue}'s rate limit when this client starts: from then on at most {@code
     * limit} of the queue's jobs start (are claimed) across the cluster in any window of {@code
     * period}, a sliding window over the recorded start times, so a period boundary never lets
     * twice the rate through. Default none. Stored in the database as {@link #concurrencyLimit} is
     * (the client that starts last sets it); {@link dev.baton.admin.BatonAdmin#limitRate} or {@code
     * baton queues rate Q N PERIOD} change it at run time. Holds together with a concurrency limit.
     * Replaces a {@link #rateLimitPerKey} of the same queue given to this builder. See
     * docs/limits.md.
     *
     * @param queue a queue name
     * @param limit starts per period, 1..1,000,000
     * @param period the window, 1 ms..1 day, in whole milliseconds
     * @throws InvalidConfigException if the name is not a queue name or a value is out of range
     */
    public Builder rateLimit(String queue, int limit, Duration period) {
      QueueConfig.requireValidName(queue);
      if (limit < 1 || limit > MAX_CONCURRENCY_LIMIT) {
        throw new InvalidConfigException(
            "rateLimit of queue \"" + queue + "\"", "1..1000000", limit);
      }
      if (!isValidRatePeriod(period)) {
        throw new InvalidConfigException(
            "rateLimit period of queue \"" + queue + "\"", "1 ms..1 day in whole ms", period);
      }
      rateLimits.put(queue, new RateLimit(limit, period));
      return this;
    }

    /**
     * Sets queue {@code queue}'s rate limit per key when this client starts: from then on at most
     * {@code limit} of the queue's jobs with one key start (are claimed) across the cluster in any
     * window of {@code period}, the sliding window of {@link #rateLimit} counted per key, the key
     * of a job being the text of its args' top-level field {@code argsField} ({@code args ->>
     * argsField}; a job without the field has the key {@code ""}). Default none. Replaces a {@link
     * #rateLimit} of the same queue given to this builder (a queue has one rate limit, of the whole
     * queue or per key), and the other way round. Stored in the database as {@link
     * #concurrencyLimit} is (the client that starts last sets it); {@link
     * dev.baton.admin.BatonAdmin#limitRatePerKey} or {@code baton queues rate Q N PERIOD --per-key
     * FIELD} change it at run time. A queue limited per key in concurrency as well ({@link
     * #concurrencyLimitPerKey}) must use the same field for both: {@link #build()} refuses two. A
     * claim of such a queue reads the queue's key index (made when the client starts, if missing
     * and its role owns the job table) for at most 32 keys at a time. See docs/limits.md.
     *
     * @param queue a queue name
     * @param argsField the args field holding the key, 1-128 characters
     * @param limit starts per key per period, 1..1,000,000
     * @param period the window, 1 ms..1 day, in whole milliseconds
     * @throws InvalidConfigException if the name is not a queue name, the field is empty or too
     *     long, or a value is out of range
     */
    public Builder rateLimitPerKey(String queue, String argsField, int limit, Duration period) {
      QueueConfig.requireValidName(queue);
      if (argsField == null || argsField.isEmpty() || argsField.length() > 128) {
        throw new InvalidConfigException(
            "rateLimitPerKey field of queue \"" + queue + "\"", "1-128 characters", argsField);
      }
      if (limit < 1 || limit > MAX_CONCURRENCY_LIMIT) {
        throw new InvalidConfigException(
            "rateLimitPerKey of queue \"" + queue + "\"", "1..1000000", limit);
      }
      if (!isValidRatePeriod(period)) {
        throw new InvalidConfigException(
            "rateLimitPerKey period of queue \"" + queue + "\"", "1 ms..1 day in whole ms", period);
      }
      rateLimits.put(queue, new RateLimit(limit, period, argsField));
      return this;
    }

    private static boolean isValidRatePeriod(Duration period) {
      return period != null
          && period.toMillis() >= 1
          && period.compareTo(MAX_RATE_PERIOD) <= 0
          && period.equals(Duration.ofMillis(period.toMillis()));
    }

    /**
     * Settings of jobs of {@code kind}: its handler's timeout and retry policy, and the queue and
     * max attempts of a job whose enqueue sets none; default none. Called again for the same kind,
     * each setting given replaces the one before and the others stay.
     *
     * <p>Where a kind's settings come from, highest first: a timeout given to {@link
     * Baton.Builder#handler(Class, Duration, JobHandler)}; this config (which the Spring Boot
     * starter fills from {@code baton.kinds.<kind>.*}, before customizers may change it); {@link
     * KindSettings} on the handler's class; {@link KindSettings} on the args class; this config's
     * {@link #jobTimeout}, {@link #retryPolicy}, and {@link EnqueueOptions}' defaults. Options an
     * enqueue sets itself always win.
     */
    public Builder kind(String kind, KindConfig settings) {
      if (!JobArgs.isValidKind(kind)) {
        throw new InvalidConfigException(
            "kind", "1-128 characters of letters, digits and _ . : - /", kind);
      }
      Objects.requireNonNull(settings, "settings of kind " + kind);
      kinds.merge(kind, settings, KindConfig::overriddenBy);
      return this;
    }

    /** {@link #kind(String, KindConfig)} for the kind of {@code argsType}. */
    public Builder kind(Class<? extends JobArgs> argsType, KindConfig settings) {
      return kind(JobArgs.kindOf(argsType), settings);
    }

    /**
     * How long a claim holds a job without a heartbeat; default 30 s, range 500 ms..1 h. A job
     * whose holder stops heartbeating is rescued this long after its last heartbeat.
     */
    public Builder lease(Duration lease) {
      requireRange("lease", lease, Duration.ofMillis(500), Duration.ofHours(1));
      this.lease = lease;
      return this;
    }

    /** How often leases are extended; default a third of the lease; must be below the lease. */
    public Builder heartbeatInterval(Duration interval) {
      requireRange("heartbeatInterval", interval, Duration.ofMillis(50), Duration.ofMinutes(30));
      this.heartbeatInterval = interval;
      return this;
    }

    /** Timeout of a job whose kind has none; default 5 min, range 10 ms..7 days. */
    public Builder jobTimeout(Duration timeout) {
      requireRange("jobTimeout", timeout, Duration.ofMillis(10), Duration.ofDays(7));
      this.jobTimeout = timeout;
      return this;
    }

    /**
     * Fallback poll interval; default 1 s, range 10 ms..1 h; jittered by +-10%. Every interval the
     * node sends one statement, whatever the number of its queues, asking which of them have an
     * available job and are not paused; only those queues' producers then claim. It bounds the
     * pickup delay of a job whose notification was lost (or, with {@link #pollOnly}, of every job),
     * and is also how long a producer waits before it tries again after a failed claim.
     */
    public Builder pollInterval(Duration interval) {
      requireRange("pollInterval", interval, Duration.ofMillis(10), Duration.ofHours(1));
      this.pollInterval = interval;
      return this;
    }

    /**
     * Turns LISTEN/NOTIFY off; default false. Use behind a transaction-pooling proxy (PgBouncer in
     * transaction mode), where LISTEN does not work. Pickup then waits for the poll.
     */
    public Builder pollOnly(boolean pollOnly) {
      this.pollOnly = pollOnly;
      return this;
    }

    /**
     * Claim on enqueue; default true. A started client that works the job's queue, handles its kind
     * and has a slot free claims a job it enqueues (with {@code enqueue(args[, options])}, on its
     * own pool, due now) in the insert itself, and runs it without a NOTIFY or a claim statement:
     * one commit before the handler starts instead of two. Only when no job of that queue waits
     * ahead of it (same or higher priority) and the queue is not paused; never for an enqueue in
     * the caller's transaction, which must commit first. Turn it off to leave every job to
     * whichever node claims first, e.g. when the enqueuing nodes should not also take the work they
     * create.
     */
    public Builder claimOnEnqueue(boolean claimOnEnqueue) {
      this.claimOnEnqueue = claimOnEnqueue;
      return this;
    }

    /**
     * Interval of the leader's rescue, schedule and periodic-job passes; default 1 s, range 10
     * ms..1 h.
     */
    public Builder maintenanceInterval(Duration interval) {
      requireRange("maintenanceInterval", interval, Duration.ofMillis(10), Duration.ofHours(1));
      this.maintenanceInterval = interval;
      return this;
    }

    /**
     * Whether this client may become the cluster's leader and run maintenance (rescue, schedule,
     * clean, periodic jobs, node pruning); default true. At least one node of a cluster must: with
     * none, retries and scheduled jobs never become available and expired leases are never rescued.
     */
    public Builder maintenanceEnabled(boolean enabled) {
      this.maintenanceEnabled = enabled;
      return this;
    }

    /**
     * Lease of the leader role; default 10 s, or three quarters of the job lease when that is
     * shorter; range 300 ms..10 min. The leader renews every third of it and stops acting two
     * thirds of it after its last successful renewal was sent; another node takes over within about
     * 1.33 times it after the leader dies. Set longer than three quarters of the lease, it bounds
     * how long a dead leader's jobs wait to be rescued instead of the lease.
     */
    public Builder leaderTtl(Duration ttl) {
      requireRange("leaderTtl", ttl, Duration.ofMillis(300), Duration.ofMinutes(10));
      this.leaderTtl = ttl;
      return this;
    }

    /**
     * How many times the leader rescues a job (lease lost, node gone, deadline passed) before it
     * discards it instead, at the last one; default 20, range 1..10,000. A rescue of a lost lease
     * gives the attempt back, so {@code maxAttempts} counts handler failures (and passed deadlines)
     * only; this bounds a job that keeps losing its node (one that crashes the process, say).
     * Applies on the node that leads: set it the same on every node that may lead.
     */
    public Builder maxRescues(int maxRescues) {
      if (maxRescues < 1 || maxRescues > 10_000) {
        throw new InvalidConfigException("maxRescues", "between 1 and 10000", maxRescues);
      }
      this.maxRescues = maxRescues;
      return this;
    }

    /** Interval of this node's registry heartbeat; default 10 s, range 100 ms..10 min. */
    public Builder nodeHeartbeatInterval(Duration interval) {
      requireRange(
          "nodeHeartbeatInterval", interval, Duration.ofMillis(100), Duration.ofMinutes(10));
      this.nodeHeartbeatInterval = interval;
      return this;
    }

    /**
     * How long a node may miss heartbeats before the leader prunes it from the registry; default 60
     * s, range 1 s..1 day, and more than twice {@code nodeHeartbeatInterval}.
     */
    public Builder nodeTtl(Duration ttl) {
      requireRange("nodeTtl", ttl, Duration.ofSeconds(1), Duration.ofDays(1));
      this.nodeTtl = ttl;
      return this;
    }

    /** Interval of the cleaner's passes; default 30 s, range 10 ms..1 day. */
    public Builder cleanInterval(Duration interval) {
      requireRange("cleanInterval", interval, Duration.ofMillis(10), Duration.ofDays(1));
      this.cleanInterval = interval;
      return this;
    }

    /** Rows the cleaner deletes per statement; default 1,000, range 1..100,000. */
    public Builder cleanBatchSize(int size) {
      if (size < 1 || size > 100_000) {
        throw new InvalidConfigException("cleanBatchSize", "between 1 and 100000", size);
      }
      this.cleanBatchSize = size;
      return this;
    }

    /**
     * How long completed jobs are kept; default 24 h, range 0..3650 days. Deleting a job frees its
     * idempotency key.
     */
    public Builder completedRetention(Duration retention) {
      requireRange("completedRetention", retention, Duration.ZERO, Duration.ofDays(3650));
      this.completedRetention = retention;
      return this;
    }

    /** How long cancelled jobs are kept; default 7 days, range 0..3650 days. */
    public Builder cancelledRetention(Duration retention) {
      requireRange("cancelledRetention", retention, Duration.ZERO, Duration.ofDays(3650));
      this.cancelledRetention = retention;
      return this;
    }

    /** How long discarded jobs are kept; default 7 days, range 0..3650 days. */
    public Builder discardedRetention(Duration retention) {
      requireRange("discardedRetention", retention, Duration.ZERO, Duration.ofDays(3650));
      this.discardedRetention = retention;
      return this;
    }

    /**
     * Whether the cleaner moves finished jobs past retention to {@code job_archive} (same columns,
     * plus {@code archived_at}) instead of deleting them; default false. The archive is never
     * cleaned by Baton.
     */
    public Builder archiveFinished(boolean archive) {
      this.archiveFinished = archive;
      return this;
    }

    /** How long {@link Baton#stop()} waits for running handlers; default 10 s, range 0..1 h. */
    public Builder stopTimeout(Duration timeout) {
      requireRange("stopTimeout", timeout, Duration.ZERO, Duration.ofHours(1));
      this.stopTimeout = timeout;
      return this;
    }

    /** Largest args accepted at enqueue in bytes of JSON; default 1 MiB, range 1..64 MiB. */
    public Builder maxArgsBytes(int bytes) {
      if (bytes < 1 || bytes > 64 << 20) {
        throw new InvalidConfigException("maxArgsBytes", "1..67108864 (64 MiB)", bytes);
      }
      this.maxArgsBytes = bytes;
      return this;
    }

    /**
     * Largest metadata accepted at enqueue in bytes of JSON; default 64 KiB, range 2 (the empty
     * object) to 16 MiB. Metadata is read with every job and copied by every retry, so it is for
     * small facts (a trace id, who enqueued); large data belongs in args or elsewhere.
     */
    public Builder maxMetadataBytes(int bytes) {
      if (bytes < 2 || bytes > 16 << 20) {
        throw new InvalidConfigException("maxMetadataBytes", "2..16777216 (16 MiB)", bytes);
      }
      this.maxMetadataBytes = bytes;
      return this;
    }

    /**
     * Whether jobs of kinds without a handler on this client may be enqueued; default false, so a
     * typo in a kind fails at enqueue rather than sitting in the queue.
     */
    public Builder allowUnknownKinds(boolean allow) {
      this.allowUnknownKinds = allow;
      return this;
    }

    /** Kinds this client may enqueue without handling them (e.g. a web app that only enqueues). */
    public Builder knownKinds(String... kinds) {
      for (String k : kinds) {
        if (!JobArgs.isValidKind(k)) {
          throw new InvalidConfigException(
              "knownKinds", "1-128 characters of letters, digits and _ . : - /", k);
        }
        knownKinds.add(k);
      }
      return this;
    }

    /** Kinds of these args classes may be enqueued without a handler on this client. */
    @SafeVarargs
    public final Builder knownKinds(Class<? extends JobArgs>... types) {
      for (Class<? extends JobArgs> t : types) {
        knownKinds.add(JobArgs.kindOf(t));
      }
      return this;
    }

    /** The retry policy; default {@link RetryPolicy#exponential()}. */
    public Builder retryPolicy(RetryPolicy policy) {
      this.retryPolicy = Objects.requireNonNull(policy, "retryPolicy");
      return this;
    }

    /** Most finishes written in one statement; default 2,000, range 1..50,000. */
    public Builder completerBatchSize(int size) {
      if (size < 1 || size > 50_000) {
        throw new InvalidConfigException("completerBatchSize", "1..50000", size);
      }
      this.completerBatchSize = size;
      return this;
    }

    /**
     * Fixes how many jobs each queue claims ahead of its free slots while it has a backlog, held by
     * this node (running, leased and heartbeated) until a slot frees; range 0..100,000. A finishing
     * handler starts the next held job itself, and claims carry more jobs per statement. Each of a
     * queue's two claim streams may fill the buffer, so a queue holds at most its concurrency plus
     * twice this. A held job that waited half a lease without a slot is handed back.
     *
     * <p>Default (not called): the depth adapts, per queue and node. A queue claims ahead only
     * after a claim that filled all it asked for (a backlog), and then as many jobs as its slots
     * run in two claim round trips: {@code 2 * concurrency * claimRoundTrip / handlerRunTime}, from
     * moving averages of the claim statement's round trip and of the queue's handler run time on
     * this node. So it grows while handlers finish faster than a claim returns (no-op jobs reach
     * {@link #ADAPTIVE_PREFETCH_LIMIT}, 2,048), and shrinks as they run longer: 0, only free slots
     * claimed, once a handler takes more than twice the concurrency times the round trip, and
     * before any handler of the queue has returned. Bounds: never more than the slots run in a
     * quarter of the lease, so a buffered job is started long before the half lease at which it
     * would be handed back; and never more than {@link #ADAPTIVE_PREFETCH_LIMIT}. A node's buffer
     * therefore holds about two claim round trips of its own work: nodes that share a backlog each
     * keep their own, and when the backlog runs out (a claim comes back short) nothing more is
     * claimed ahead, so no node sits on jobs another could run for longer than that. Fix it only to
     * measure, or for a workload whose run times swing widely between jobs of one queue.
     */
    public Builder prefetch(int jobs) {
      if (jobs < 0 || jobs > 100_000) {
        throw new InvalidConfigException("prefetch", "0..100000", jobs);
      }
      this.prefetch = jobs;
      return this;
    }

    /**
     * Finishes that may wait to be written before handlers block; default 10,000, range
     * 1..1,000,000. The client uses at most its total concurrency plus prefetch (at least 64) of
     * it.
     */
    public Builder completerCapacity(int capacity) {
      if (capacity < 1 || capacity > 1_000_000) {
        throw new InvalidConfigException("completerCapacity", "1..1000000", capacity);
      }
      this.completerCapacity = capacity;
      return this;
    }

    /**
     * How long a plain completion may wait for this node's next claim to carry it (one commit for
     * both) before the completer writes it on its own; default 2 ms, range 0..1 s. 0 writes every
     * completion at once, apart from claims. Failures, snoozes and cancels never wait.
     */
    public Builder completerFlushDelay(Duration delay) {
      requireRange("completerFlushDelay", delay, Duration.ZERO, Duration.ofSeconds(1));
      this.completerFlushDelay = delay;
      return this;
    }

    /**
     * Whether handlers run on virtual threads; default: yes on Java 21+, a bounded platform pool on
     * Java 17. Setting true on Java 17 fails at build.
     */
    public Builder virtualThreads(boolean virtualThreads) {
      this.virtualThreads = virtualThreads;
      return this;
    }

    /** Checks the combination of settings and builds the config. */
    public BatonConfig build() {
      Duration hb = heartbeatInterval != null ? heartbeatInterval : lease.dividedBy(3);
      if (hb.compareTo(lease) >= 0) {
        throw new InvalidConfigException(
            "heartbeatInterval", "shorter than the lease (" + lease + ")", hb);
      }
      if (nodeTtl.compareTo(nodeHeartbeatInterval.multipliedBy(2)) <= 0) {
        throw new InvalidConfigException(
            "nodeTtl",
            "more than twice nodeHeartbeatInterval (" + nodeHeartbeatInterval + ")",
            nodeTtl);
      }
      // The database holds one key field for a queue limited per key in concurrency and in rate
      // (queue_rate_key_field_check): two would fail only when the client starts.
      for (Map.Entry<String, RateLimit> r : rateLimits.entrySet()) {
        KeyLimit k = keyLimits.get(r.getKey());
        String field = r.getValue().argsField();
        if (k != null && field != null && !field.equals(k.argsField())) {
          throw new InvalidConfigException(
              "rateLimitPerKey field of queue \"" + r.getKey() + "\"",
              "the field of its concurrencyLimitPerKey (\""
                  + k.argsField()
                  + "\"), as a queue limited per key in concurrency and in rate has one key field",
              field);
        }
      }
      if (Boolean.TRUE.equals(virtualThreads) && Runtime.version().feature() < 21) {
        throw new InvalidConfigException(
            "virtualThreads",
            "false on Java " + Runtime.version().feature() + " (needs 21+)",
            true);
      }
      return new BatonConfig(this);
    }

    /** Whether {@code schema} is a valid schema name. */
    static boolean isValidSchema(String schema) {
      return schema != null && schema.matches("[a-z_][a-z0-9_]{0,54}");
    }

    private static void requireRange(String property, Duration d, Duration min, Duration max) {
      if (d == null || d.compareTo(min) < 0 || d.compareTo(max) > 0) {
        throw new InvalidConfigException(property, "between " + min + " and " + max, d);
      }
    }
  }

  /** The queue names, for messages. */
  List<String> queueNames() {
    return List.copyOf(queues.keySet());
  }
}
