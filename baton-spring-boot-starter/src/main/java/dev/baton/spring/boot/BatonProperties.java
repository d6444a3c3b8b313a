package dev.baton.spring.boot;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code baton.*} properties: one for every {@link dev.baton.BatonConfig} setting, plus the
 * starter's own ({@code enabled}, {@code migrate}, {@code retry}, {@code metrics}, {@code
 * dashboard}). A setting left unset keeps Baton's default, named in its description; durations take
 * Spring's format ({@code 30s}, {@code 500ms}, {@code 1h}, ISO-8601, or a plain number of
 * milliseconds). Values are checked by {@link dev.baton.BatonConfig.Builder} when the {@code Baton}
 * bean is built; a rejected one fails start-up with a message naming the property, what was
 * expected and what was given.
 */
@ConfigurationProperties(prefix = "baton")
public class BatonProperties {

  /**
   * Whether this application works jobs: starts Baton's workers and maintenance when the context
   * has started and stops them when it closes. False for an application that only enqueues: the
   * Baton bean is still there for enqueueing and reading jobs.
   */
  private boolean enabled = true;

  /**
   * Whether the Baton schema is migrated (Migrator.up()) when the Baton bean is created. Off by
   * default: most teams apply the SQL that Migrator.print() writes with their own migration tool.
   * Needs DDL rights.
   */
  private boolean migrate = false;

  /**
   * Schema of Baton's tables; default baton. 1-55 lower-case letters, digits and _, starting with a
   * letter or _.
   */
  private String schema = "baton";

  /**
   * This node's id, recorded on the jobs it claims; default host-slot, stable across restarts (see
   * docs/configuration.md). 1-128 printable ASCII characters without spaces; unique per running
   * client.
   */
  private String nodeId;

  /**
   * The queues this node works, by name, each with its concurrency (1..10000, default 16). When
   * none is set and the application has JobHandler beans, it works the queue "default" with 16
   * slots.
   */
  private Map<String, Queue> queues = new LinkedHashMap<>();

  /**
   * Backlog caps to set at start-up, by queue (e.g. baton.backlog-caps.mail=1000): the most jobs
   * that may wait (available, scheduled, retryable) in the queue, 1..100000000; an enqueue over it
   * is refused (docs/backlog-caps.md). Set cluster-wide on the queue's row when the Baton bean is
   * created, where it differs; a cap this property no longer names stays until removed (baton
   * queues cap QUEUE --remove).
   */
  private Map<String, Integer> backlogCaps = new LinkedHashMap<>();

  /**
   * Settings of kinds of jobs, by kind (e.g. send_email): timeout, max-attempts, queue, retry.base,
   * retry.cap; each unset one falls back to a @KindSettings annotation on the handler or args
   * class, then to the node's default. A BatonBuilderCustomizer may change them further.
   */
  private Map<String, Kind> kinds = new LinkedHashMap<>();

  // The settings below stay null until set, so an unset one keeps Baton's default, some of which
  // follow from others (heartbeat-interval from lease). The constant defaults an IDE shows come
  // from META-INF/additional-spring-configuration-metadata.json; ConfigurationMetadataTest holds
  // them to BatonConfig's.

  /** How long a claim holds a job without a heartbeat; default 30s, range 500ms..1h. */
  private Duration lease;

  /**
   * How often leases of running jobs are extended; default a third of the lease, range 50ms..30m
   * and below the lease.
   */
  private Duration heartbeatInterval;

  /** Timeout of a job whose handler has none of its own; default 5m, range 10ms..7d. */
  private Duration jobTimeout;

  /** Fallback poll interval (LISTEN/NOTIFY wakes workers sooner); default 1s, range 10ms..1h. */
  private Duration pollInterval;

  /** Turns LISTEN/NOTIFY off (e.g. behind PgBouncer in transaction mode); default false. */
  private Boolean pollOnly;

  /**
   * Whether a job enqueued on Baton's own connection (outside a transaction) for a queue this node
   * works is claimed in the insert itself; default true.
   */
  private Boolean claimOnEnqueue;

  /** Interval of the leader's rescue, schedule and periodic passes; default 1s, range 10ms..1h. */
  private Duration maintenanceInterval;

  /**
   * Whether this node may become the cluster's leader and run maintenance; default true. At least
   * one node of a cluster must.
   */
  private Boolean maintenanceEnabled;

  /** Lease of the leader role; default min(10s, 3/4 of the lease), range 300ms..10m. */
  private Duration leaderTtl;

  /**
   * How many times the leader rescues a job (lease lost, node gone, deadline passed) before it
   * discards it, at the last one; default 20, range 1..10000. A rescue of a lost lease gives the
   * attempt back, so max attempts count handler failures only. Applies on the node that leads: set
   * it the same on every node that may lead.
   */
  private Integer maxRescues;

  /** Interval of this node's registry heartbeat; default 10s, range 100ms..10m. */
  private Duration nodeHeartbeatInterval;

  /**
   * How long a node may miss heartbeats before it is pruned; default 60s, range 1s..1d, and more
   * than twice node-heartbeat-interval.
   */
  private Duration nodeTtl;

  /** Interval of the cleaner's passes; default 30s, range 10ms..1d. */
  private Duration cleanInterval;

  /** Rows the cleaner deletes per statement; default 1000, range 1..100000. */
  private Integer cleanBatchSize;

  /**
   * How long completed jobs are kept; default 24h, range 0..3650d. 0 (without archive-finished):
   * the completion deletes the job's row instead of keeping it; set it alike on every node.
   */
  private Duration completedRetention;

  /** How long cancelled jobs are kept; default 7d, range 0..3650d. */
  private Duration cancelledRetention;

  /** How long discarded jobs are kept; default 7d, range 0..3650d. */
  private Duration discardedRetention;

  /**
   * Whether finished jobs past retention move to job_archive instead of being deleted; default
   * false. Baton never cleans the archive.
   */
  private Boolean archiveFinished;

  /**
   * How long stopping (when the context closes) waits for running handlers before interrupting them
   * and handing their jobs back; default 10s, range 0..1h. Must be less than
   * spring.lifecycle.timeout-per-shutdown-phase (default 30s); unset, it is half of that when half
   * is less than 10s.
   */
  private Duration stopTimeout;

  /** Largest args accepted at enqueue, in bytes of JSON; default 1048576, range 1..67108864. */
  private Integer maxArgsBytes;

  /**
   * Largest metadata accepted at enqueue, in bytes of JSON; default 65536, range 2 (the empty
   * object) to 16777216. Metadata is read with every job and copied by every retry: it is for small
   * facts such as a trace id.
   */
  private Integer maxMetadataBytes;

  /**
   * Whether jobs of kinds without a handler bean in this application may be enqueued; default
   * false, so a mistyped kind fails at enqueue.
   */
  private Boolean allowUnknownKinds;

  /**
   * Kinds this application may enqueue without handling them (e.g. send_email); default none. Each
   * 1-128 letters, digits and _ . : - /.
   */
  private List<String> knownKinds = new ArrayList<>();

  /** Most finishes written in one statement; default 2000, range 1..50000. */
  private Integer completerBatchSize;

  /**
   * Finishes that may wait to be written before handlers block; default 10000, range 1..1000000.
   */
  private Integer completerCapacity;

  /**
   * How long a completion may wait for the next claim to carry it; default 2ms, range 0..1s. 0
   * writes every completion at once.
   */
  private Duration completerFlushDelay;

  /**
   * Whether handlers run on virtual threads; default: yes on Java 21+, a pool on Java 17. True
   * needs Java 21+.
   */
  private Boolean virtualThreads;

  /**
   * Fixes how many jobs each queue claims ahead of its free slots, range 0..100000; default
   * (unset): a depth that adapts to the queue's handler run time, up to 2048.
   */
  private Integer prefetch;

  /** Backoff of failed attempts. */
  private final Retry retry = new Retry();

  /** The Micrometer meters (bound when the application has a MeterRegistry). */
  private final Metrics metrics = new Metrics();

  /** The dashboard on a port of its own (needs baton-dashboard on the classpath). */
  private final Dashboard dashboard = new Dashboard();

  /** One queue this node works. */
  public static class Queue {
    /** Jobs of this queue running at once on this node, 1..10000. */
    private int concurrency = 16;

    /** Jobs of this queue running at once on this node. */
    public int getConcurrency() {
      return concurrency;
    }

    /** Sets the jobs of this queue running at once on this node. */
    public void setConcurrency(int concurrency) {
      this.concurrency = concurrency;
    }

    /**
     * Jobs of this queue running at once across the whole cluster, 0..1000000, set in the database
     * when this node starts; unset, none is set (and one set before, at run time or by another
     * node, stays). Change it at run time with BatonAdmin#limitConcurrency or `baton queues limit`.
     */
    private Integer concurrencyLimit;

    /** Jobs of this queue running at once across the whole cluster, or null. */
    public Integer getConcurrencyLimit() {
      return concurrencyLimit;
    }

    /** Sets the jobs of this queue running at once across the whole cluster. */
    public void setConcurrencyLimit(Integer concurrencyLimit) {
      this.concurrencyLimit = concurrencyLimit;
    }

    /**
     * The top-level field of this queue's jobs' args whose text is a job's key, 1-128 characters,
     * for key-limit; set both or neither. A job without the field has the key "". Unset, no limit
     * per key is set (one set before stays).
     */
    private String keyField;

    /**
     * Jobs of this queue with one key (see key-field) running at once across the whole cluster,
     * 1..1000000, set in the database when this node starts; unset, none is set. Change it at run
     * time with BatonAdmin#limitConcurrencyPerKey or `baton queues limit Q N --per-key FIELD`.
     */
    private Integer keyLimit;

    /**
     * Starts of this queue's jobs across the whole cluster in any window of rate-period,
     * 1..1000000, set in the database when this node starts; set both or neither. Unset, no rate
     * limit is set (one set before stays). Change it at run time with BatonAdmin#limitRate or
     * `baton queues rate Q N PERIOD`.
     */
    private Integer rateLimit;

    /** The window of rate-limit, 1ms..1d in whole milliseconds, e.g. 1s. */
    private Duration ratePeriod;

    /**
     * The top-level field of this queue's jobs' args whose text is a job's key, 1-128 characters,
     * to make rate-limit hold per key (at most rate-limit starts of each key per rate-period)
     * instead of for the queue as a whole; needs rate-limit and rate-period. A job without the
     * field has the key "". With key-field set as well, both must name the same field. Unset,
     * rate-limit holds for the queue as a whole. Change it at run time with
     * BatonAdmin#limitRatePerKey or `baton queues rate Q N PERIOD --per-key FIELD`.
     */
    private String rateKeyField;

    /** The args field of this queue's limit per key, or null. */
    public String getKeyField() {
      return keyField;
    }

    /** Sets the args field of this queue's limit per key. */
    public void setKeyField(String keyField) {
      this.keyField = keyField;
    }

    /** Jobs of one key of this queue running at once across the whole cluster, or null. */
    public Integer getKeyLimit() {
      return keyLimit;
    }

    /** Sets the jobs of one key of this queue running at once across the whole cluster. */
    public void setKeyLimit(Integer keyLimit) {
      this.keyLimit = keyLimit;
    }

    /** Starts of this queue's jobs per rate-period across the whole cluster, or null. */
    public Integer getRateLimit() {
      return rateLimit;
    }

    /** Sets the starts of this queue's jobs per rate-period across the whole cluster. */
    public void setRateLimit(Integer rateLimit) {
      this.rateLimit = rateLimit;
    }

    /** The window of this queue's rate limit, or null. */
    public Duration getRatePeriod() {
      return ratePeriod;
    }

    /** Sets the window of this queue's rate limit. */
    public void setRatePeriod(Duration ratePeriod) {
      this.ratePeriod = ratePeriod;
    }

    /** The args field of this queue's rate limit per key, or null for a rate of the whole queue. */
    public String getRateKeyField() {
      return rateKeyField;
    }

    /** Sets the args field of this queue's rate limit per key. */
    public void setRateKeyField(String rateKeyField) {
      this.rateKeyField = rateKeyField;
    }
  }

  /** Settings of one kind of job; each unset one falls back. */
  public static class Kind {
    /** Timeout of the kind's handler, range 10ms..7d. */
    private Duration timeout;

    /** Attempts before a failure discards a job of the kind whose enqueue sets none, 1..1000. */
    private Integer maxAttempts;

    /** Queue of a job of the kind whose enqueue names none. */
    private String queue;

    /** Backoff of the kind's failed attempts. */
    private final Retry retry = new Retry();

    /** Timeout of the kind's handler. */
    public Duration getTimeout() {
      return timeout;
    }

    /** Sets the timeout of the kind's handler. */
    public void setTimeout(Duration timeout) {
      this.timeout = timeout;
    }

    /** Attempts of a job of the kind. */
    public Integer getMaxAttempts() {
      return maxAttempts;
    }

    /** Sets the attempts of a job of the kind. */
    public void setMaxAttempts(Integer maxAttempts) {
      this.maxAttempts = maxAttempts;
    }

    /** Queue of a job of the kind. */
    public String getQueue() {
      return queue;
    }

    /** Sets the queue of a job of the kind. */
    public void setQueue(String queue) {
      this.queue = queue;
    }

    /** Backoff of the kind's failed attempts. */
    public Retry getRetry() {
      return retry;
    }
  }

  /** Exponential backoff with jitter: min(cap, base * 2^(attempt-1)), +-20%. */
  public static class Retry {
    /** Delay after the first failed attempt; default 1s; more than 0. */
    private Duration base;

    /** Longest delay between attempts; default 1h; at least base. */
    private Duration cap;

    /** Delay after the first failed attempt. */
    public Duration getBase() {
      return base;
    }

    /** Sets the delay after the first failed attempt. */
    public void setBase(Duration base) {
      this.base = base;
    }

    /** Longest delay between attempts. */
    public Duration getCap() {
      return cap;
    }

    /** Sets the longest delay between attempts. */
    public void setCap(Duration cap) {
      this.cap = cap;
    }
  }

  /** The Micrometer meters. */
  public static class Metrics {
    /** Whether Baton's meters are bound to the application's MeterRegistry. */
    private boolean enabled = true;

    /** How often the cluster-wide queue gauges are read from the database; default 5s. */
    private Duration refreshInterval;

    /** Whether the cluster-wide queue gauges (depth, oldest age, failure share) are read. */
    private boolean queueStats = true;

    /**
     * Whether the timers (pickup latency, run time) publish percentile histograms, for quantiles
     * across nodes; off by default: some 70 more series per queue and kind on each scrape.
     */
    private boolean percentileHistograms = false;

    /** Whether the timers publish percentile histograms. */
    public boolean isPercentileHistograms() {
      return percentileHistograms;
    }

    /** Sets whether the timers publish percentile histograms. */
    public void setPercentileHistograms(boolean percentileHistograms) {
      this.percentileHistograms = percentileHistograms;
    }

    /** Whether Baton's meters are bound. */
    public boolean isEnabled() {
      return enabled;
    }

    /** Sets whether Baton's meters are bound. */
    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    /** How often the queue gauges are read. */
    public Duration getRefreshInterval() {
      return refreshInterval;
    }

    /** Sets how often the queue gauges are read. */
    public void setRefreshInterval(Duration refreshInterval) {
      this.refreshInterval = refreshInterval;
    }

    /** Whether the queue gauges are read. */
    public boolean isQueueStats() {
      return queueStats;
    }

    /** Sets whether the queue gauges are read. */
    public void setQueueStats(boolean queueStats) {
      this.queueStats = queueStats;
    }
  }

  /**
   * The Baton dashboard, when baton-dashboard is on the classpath and {@code enabled} is true:
   * served on a port of its own while the context runs, or with {@code path} on the application's
   * own servlet server at that path. On its own port auth is a bearer token or basic credentials
   * (not both); without either it serves only a loopback address unless {@code allow-anonymous} is
   * true, and then anyone who can reach the port may use it. At a path the application's security
   * authenticates (Spring Security) and the dashboard wants an authenticated user in {@code role}.
   * A {@code DashboardAuth} bean replaces either.
   */
  public static class Dashboard {
    /** Whether the dashboard is served; needs baton-dashboard on the classpath. */
    private boolean enabled = false;

    /**
     * Path on the application's own servlet server where the dashboard is served, e.g. /baton
     * (below the context path); unset or empty (default): on a port of its own. Segments of
     * letters, digits and . _ ~ -, each after a /, no trailing /. Needs a servlet web application,
     * and Spring Security or a DashboardAuth bean; port and bind are not used then, and token,
     * username and password must be unset (unless a DashboardAuth bean replaces them).
     */
    private String path;

    /**
     * Role the authenticated user must have when the dashboard is at path, as
     * HttpServletRequest.isUserInRole sees it (Spring Security: authority ROLE_ + role); default
     * BATON_ADMIN; empty: any authenticated user. Not used on the dashboard's own port.
     */
    private String role = "BATON_ADMIN";

    /** Port of the dashboard's own HTTP server; 0 picks a free one. */
    private int port = 7070;

    /** Address the dashboard binds; a wider one (0.0.0.0) exposes it beyond this host. */
    private String bind = "127.0.0.1";

    /** Whether the dashboard only shows: every action (retry, cancel, pause...) is refused. */
    private boolean readOnly = false;

    /**
     * Token that requests must carry as "Authorization: Bearer ..."; at least 16 characters. Unset
     * or empty (default): no token.
     */
    private String token;

    /**
     * Named bearer tokens, name to token (baton.dashboard.tokens.anna=...): a request carrying any
     * of them is let in, and its actions are recorded under that token's name. Names are 1 to 64
     * letters, digits, '.', '_', '-' or '@'; tokens at least 16 characters. Not with token,
     * username or password. Default: none.
     */
    private Map<String, String> tokens = new LinkedHashMap<>();

    /** User of HTTP basic auth (with password), without ':'. Unset or empty (default): none. */
    private String username;

    /** Password of HTTP basic auth (with username). Unset or empty (default): none. */
    private String password;

    /**
     * Whether the dashboard on its own port may serve without authentication on an address beyond
     * loopback (bind 0.0.0.0, say), where start-up fails otherwise: anyone who reaches the port may
     * then act on jobs. Not used at path, nor with a token, basic credentials or a DashboardAuth
     * bean.
     */
    private boolean allowAnonymous = false;

    /**
     * Origins besides the dashboard's own from which a browser may send an action, e.g.
     * https://ops.example.com: the address users reach the dashboard at through a reverse proxy
     * that passes on another Host header (nginx's default). Each a scheme (http or https), a host
     * and an optional port, without a path; default none.
     */
    private List<String> allowedOrigins = new ArrayList<>();

    // An empty (or blank) value, as "baton.dashboard.token=" in a properties file or an empty
    // environment variable gives, means unset for path, token, username and password alike.
    private static String unsetIfEmpty(String value) {
      return value == null || value.isBlank() ? null : value;
    }

    /** Whether the dashboard is served. */
    public boolean isEnabled() {
      return enabled;
    }

    /** Sets whether the dashboard is served. */
    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    /** Path on the application's server, or null for a port of its own. */
    public String getPath() {
      return path;
    }

    /** Sets the path on the application's server. */
    public void setPath(String path) {
      this.path = unsetIfEmpty(path);
    }

    /** Role the user must have at {@code path}; empty for any authenticated user. */
    public String getRole() {
      return role;
    }

    /** Sets the role the user must have at {@code path}. */
    public void setRole(String role) {
      this.role = role;
    }

    /** Port of the dashboard's server. */
    public int getPort() {
      return port;
    }

    /** Sets the port of the dashboard's server. */
    public void setPort(int port) {
      this.port = port;
    }

    /** Address the dashboard binds. */
    public String getBind() {
      return bind;
    }

    /** Sets the address the dashboard binds. */
    public void setBind(String bind) {
      this.bind = bind;
    }

    /** Whether the dashboard only shows. */
    public boolean isReadOnly() {
      return readOnly;
    }

    /** Sets whether the dashboard only shows. */
    public void setReadOnly(boolean readOnly) {
      this.readOnly = readOnly;
    }

    /** Bearer token of the dashboard. */
    public String getToken() {
      return token;
    }

    /** Sets the bearer token of the dashboard. */
    public void setToken(String token) {
      this.token = unsetIfEmpty(token);
    }

    /** Named bearer tokens of the dashboard, name to token. */
    public Map<String, String> getTokens() {
      return tokens;
    }

    /** Sets the named bearer tokens of the dashboard. */
    public void setTokens(Map<String, String> tokens) {
      this.tokens = tokens == null ? new LinkedHashMap<>() : tokens;
    }

    /** User of basic auth. */
    public String getUsername() {
      return username;
    }

    /** Sets the user of basic auth. */
    public void setUsername(String username) {
      this.username = unsetIfEmpty(username);
    }

    /** Password of basic auth. */
    public String getPassword() {
      return password;
    }

    /** Sets the password of basic auth. */
    public void setPassword(String password) {
      this.password = unsetIfEmpty(password);
    }

    /** Whether the dashboard may serve without authentication beyond loopback. */
    public boolean isAllowAnonymous() {
      return allowAnonymous;
    }

    /** Sets whether the dashboard may serve without authentication beyond loopback. */
    public void setAllowAnonymous(boolean allowAnonymous) {
      this.allowAnonymous = allowAnonymous;
    }

    /** Origins besides the dashboard's own that may send actions. */
    public List<String> getAllowedOrigins() {
      return allowedOrigins;
    }

    /** Sets the origins besides the dashboard's own that may send actions. */
    public void setAllowedOrigins(List<String> allowedOrigins) {
      this.allowedOrigins = allowedOrigins;
    }
  }

  /** The value of {@code baton.enabled}. */
  public boolean isEnabled() {
    return enabled;
  }

  /** Sets {@code baton.enabled}. */
  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  /** The value of {@code baton.migrate}. */
  public boolean isMigrate() {
    return migrate;
  }

  /** Sets {@code baton.migrate}. */
  public void setMigrate(boolean migrate) {
    this.migrate = migrate;
  }

  /** The value of {@code baton.schema}. */
  public String getSchema() {
    return schema;
  }

  /** Sets {@code baton.schema}. */
  public void setSchema(String schema) {
    this.schema = schema;
  }

  /** The value of {@code baton.node-id}. */
  public String getNodeId() {
    return nodeId;
  }

  /** Sets {@code baton.node-id}. */
  public void setNodeId(String nodeId) {
    this.nodeId = nodeId;
  }

  /** The value of {@code baton.backlog-caps}. */
  public Map<String, Integer> getBacklogCaps() {
    return backlogCaps;
  }

  /** Sets {@code baton.backlog-caps}. */
  public void setBacklogCaps(Map<String, Integer> backlogCaps) {
    this.backlogCaps = backlogCaps;
  }

  /** The value of {@code baton.queues}. */
  public Map<String, Queue> getQueues() {
    return queues;
  }

  /** Sets {@code baton.queues}. */
  public void setQueues(Map<String, Queue> queues) {
    this.queues = queues;
  }

  /** The value of {@code baton.kinds}. */
  public Map<String, Kind> getKinds() {
    return kinds;
  }

  /** Sets {@code baton.kinds}. */
  public void setKinds(Map<String, Kind> kinds) {
    this.kinds = kinds;
  }

  /** The value of {@code baton.lease}. */
  public Duration getLease() {
    return lease;
  }

  /** Sets {@code baton.lease}. */
  public void setLease(Duration lease) {
    this.lease = lease;
  }

  /** The value of {@code baton.heartbeat-interval}. */
  public Duration getHeartbeatInterval() {
    return heartbeatInterval;
  }

  /** Sets {@code baton.heartbeat-interval}. */
  public void setHeartbeatInterval(Duration heartbeatInterval) {
    this.heartbeatInterval = heartbeatInterval;
  }

  /** The value of {@code baton.job-timeout}. */
  public Duration getJobTimeout() {
    return jobTimeout;
  }

  /** Sets {@code baton.job-timeout}. */
  public void setJobTimeout(Duration jobTimeout) {
    this.jobTimeout = jobTimeout;
  }

  /** The value of {@code baton.poll-interval}. */
  public Duration getPollInterval() {
    return pollInterval;
  }

  /** Sets {@code baton.poll-interval}. */
  public void setPollInterval(Duration pollInterval) {
    this.pollInterval = pollInterval;
  }

  /** The value of {@code baton.poll-only}. */
  public Boolean getPollOnly() {
    return pollOnly;
  }

  /** Sets {@code baton.poll-only}. */
  public void setPollOnly(Boolean pollOnly) {
    this.pollOnly = pollOnly;
  }

  /** The value of {@code baton.claim-on-enqueue}. */
  public Boolean getClaimOnEnqueue() {
    return claimOnEnqueue;
  }

  /** Sets {@code baton.claim-on-enqueue}. */
  public void setClaimOnEnqueue(Boolean claimOnEnqueue) {
    this.claimOnEnqueue = claimOnEnqueue;
  }

  /** The value of {@code baton.maintenance-interval}. */
  public Duration getMaintenanceInterval() {
    return maintenanceInterval;
  }

  /** Sets {@code baton.maintenance-interval}. */
  public void setMaintenanceInterval(Duration maintenanceInterval) {
    this.maintenanceInterval = maintenanceInterval;
  }

  /** The value of {@code baton.maintenance-enabled}. */
  public Boolean getMaintenanceEnabled() {
    return maintenanceEnabled;
  }

  /** Sets {@code baton.maintenance-enabled}. */
  public void setMaintenanceEnabled(Boolean maintenanceEnabled) {
    this.maintenanceEnabled = maintenanceEnabled;
  }

  /** The value of {@code baton.leader-ttl}. */
  public Duration getLeaderTtl() {
    return leaderTtl;
  }

  /** Sets {@code baton.leader-ttl}. */
  public void setLeaderTtl(Duration leaderTtl) {
    this.leaderTtl = leaderTtl;
  }

  /** The value of {@code baton.max-rescues}. */
  public Integer getMaxRescues() {
    return maxRescues;
  }

  /** Sets {@code baton.max-rescues}. */
  public void setMaxRescues(Integer maxRescues) {
    this.maxRescues = maxRescues;
  }

  /** The value of {@code baton.node-heartbeat-interval}. */
  public Duration getNodeHeartbeatInterval() {
    return nodeHeartbeatInterval;
  }

  /** Sets {@code baton.node-heartbeat-interval}. */
  public void setNodeHeartbeatInterval(Duration nodeHeartbeatInterval) {
    this.nodeHeartbeatInterval = nodeHeartbeatInterval;
  }

  /** The value of {@code baton.node-ttl}. */
  public Duration getNodeTtl() {
    return nodeTtl;
  }

  /** Sets {@code baton.node-ttl}. */
  public void setNodeTtl(Duration nodeTtl) {
    this.nodeTtl = nodeTtl;
  }

  /** The value of {@code baton.clean-interval}. */
  public Duration getCleanInterval() {
    return cleanInterval;
  }

  /** Sets {@code baton.clean-interval}. */
  public void setCleanInterval(Duration cleanInterval) {
    this.cleanInterval = cleanInterval;
  }

  /** The value of {@code baton.clean-batch-size}. */
  public Integer getCleanBatchSize() {
    return cleanBatchSize;
  }

  /** Sets {@code baton.clean-batch-size}. */
  public void setCleanBatchSize(Integer cleanBatchSize) {
    this.cleanBatchSize = cleanBatchSize;
  }

  /** The value of {@code baton.completed-retention}. */
  public Duration getCompletedRetention() {
    return completedRetention;
  }

  /** Sets {@code baton.completed-retention}. */
  public void setCompletedRetention(Duration completedRetention) {
    this.completedRetention = completedRetention;
  }

  /** The value of {@code baton.cancelled-retention}. */
  public Duration getCancelledRetention() {
    return cancelledRetention;
  }

  /** Sets {@code baton.cancelled-retention}. */
  public void setCancelledRetention(Duration cancelledRetention) {
    this.cancelledRetention = cancelledRetention;
  }

  /** The value of {@code baton.discarded-retention}. */
  public Duration getDiscardedRetention() {
    return discardedRetention;
  }

  /** Sets {@code baton.discarded-retention}. */
  public void setDiscardedRetention(Duration discardedRetention) {
    this.discardedRetention = discardedRetention;
  }

  /** The value of {@code baton.archive-finished}. */
  public Boolean getArchiveFinished() {
    return archiveFinished;
  }

  /** Sets {@code baton.archive-finished}. */
  public void setArchiveFinished(Boolean archiveFinished) {
    this.archiveFinished = archiveFinished;
  }

  /** The value of {@code baton.stop-timeout}. */
  public Duration getStopTimeout() {
    return stopTimeout;
  }

  /** Sets {@code baton.stop-timeout}. */
  public void setStopTimeout(Duration stopTimeout) {
    this.stopTimeout = stopTimeout;
  }

  /** The value of {@code baton.max-args-bytes}. */
  public Integer getMaxArgsBytes() {
    return maxArgsBytes;
  }

  /** Sets {@code baton.max-args-bytes}. */
  public void setMaxArgsBytes(Integer maxArgsBytes) {
    this.maxArgsBytes = maxArgsBytes;
  }

  /** The value of {@code baton.max-metadata-bytes}. */
  public Integer getMaxMetadataBytes() {
    return maxMetadataBytes;
  }

  /** Sets {@code baton.max-metadata-bytes}. */
  public void setMaxMetadataBytes(Integer maxMetadataBytes) {
    this.maxMetadataBytes = maxMetadataBytes;
  }

  /** The value of {@code baton.allow-unknown-kinds}. */
  public Boolean getAllowUnknownKinds() {
    return allowUnknownKinds;
  }

  /** Sets {@code baton.allow-unknown-kinds}. */
  public void setAllowUnknownKinds(Boolean allowUnknownKinds) {
    this.allowUnknownKinds = allowUnknownKinds;
  }

  /** The value of {@code baton.known-kinds}. */
  public List<String> getKnownKinds() {
    return knownKinds;
  }

  /** Sets {@code baton.known-kinds}. */
  public void setKnownKinds(List<String> knownKinds) {
    this.knownKinds = knownKinds;
  }

  /** The value of {@code baton.completer-batch-size}. */
  public Integer getCompleterBatchSize() {
    return completerBatchSize;
  }

  /** Sets {@code baton.completer-batch-size}. */
  public void setCompleterBatchSize(Integer completerBatchSize) {
    this.completerBatchSize = completerBatchSize;
  }

  /** The value of {@code baton.completer-capacity}. */
  public Integer getCompleterCapacity() {
    return completerCapacity;
  }

  /** Sets {@code baton.completer-capacity}. */
  public void setCompleterCapacity(Integer completerCapacity) {
    this.completerCapacity = completerCapacity;
  }

  /** The value of {@code baton.completer-flush-delay}. */
  public Duration getCompleterFlushDelay() {
    return completerFlushDelay;
  }

  /** Sets {@code baton.completer-flush-delay}. */
  public void setCompleterFlushDelay(Duration completerFlushDelay) {
    this.completerFlushDelay = completerFlushDelay;
  }

  /** The value of {@code baton.virtual-threads}. */
  public Boolean getVirtualThreads() {
    return virtualThreads;
  }

  /** Sets {@code baton.virtual-threads}. */
  public void setVirtualThreads(Boolean virtualThreads) {
    this.virtualThreads = virtualThreads;
  }

  /** The value of {@code baton.prefetch}. */
  public Integer getPrefetch() {
    return prefetch;
  }

  /** Sets {@code baton.prefetch}. */
  public void setPrefetch(Integer prefetch) {
    this.prefetch = prefetch;
  }

  /** The value of {@code baton.retry}. */
  public Retry getRetry() {
    return retry;
  }

  /** The value of {@code baton.metrics}. */
  public Metrics getMetrics() {
    return metrics;
  }

  /** The value of {@code baton.dashboard}. */
  public Dashboard getDashboard() {
    return dashboard;
  }
}
