package dev.baton.test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.Dependency;
import dev.baton.EnqueueOptions;
import dev.baton.JobArgs;
import dev.baton.JobContext;
import dev.baton.JobState;
import dev.baton.LostBatonException;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link JobContext} for running one handler in a test without a database ({@link
 * HandlerHarness}): attempt, fence, idempotency key, deadline and metadata are what the builder
 * set; {@link #cancel()} flags the job cancelled and interrupts the handler's thread, as a cancel
 * request, a timeout or a stopping client does.
 *
 * <p>{@link #extendLease} moves the deadline (it cannot lose the baton unless {@link #loseBaton()}
 * was called); {@link #completeIn} records the connection instead of writing to it. Thread-safe.
 */
public final class TestJobContext implements JobContext {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final long jobId;
  private final String kind;
  private final String queue;
  private final int attempt;
  private final int maxAttempts;
  private final long fence;
  private final String idempotencyKey;
  private final JsonNode metadata;
  private final Clock clock;
  private volatile Instant deadline;
  private volatile boolean cancelled;
  private volatile boolean lost;
  private volatile Connection completedIn;
  private volatile JsonNode output;
  private volatile double progress = -1;
  private final Map<String, Object> steps = new ConcurrentHashMap<>();
  private final java.util.List<Dependency> dependencies;
  private final AtomicReference<Thread> handlerThread = new AtomicReference<>();

  private TestJobContext(Builder b) {
    this.jobId = b.jobId;
    this.kind = b.kind;
    this.queue = b.queue;
    this.attempt = b.attempt;
    this.maxAttempts = b.maxAttempts;
    this.fence = b.fence;
    this.idempotencyKey = b.idempotencyKey != null ? b.idempotencyKey : "baton:test:" + b.jobId;
    ObjectNode meta = MAPPER.valueToTree(b.metadata);
    this.metadata = meta;
    this.clock = b.clock;
    this.deadline = b.deadline != null ? b.deadline : clock.instant().plus(Duration.ofMinutes(1));
    this.dependencies = java.util.List.copyOf(b.dependencies);
  }

  /**
   * A builder for a context of a job of {@code type}'s kind: job id 1, queue {@value
   * EnqueueOptions#DEFAULT_QUEUE}, attempt 1 of {@value EnqueueOptions#DEFAULT_MAX_ATTEMPTS}, fence
   * 1, key {@code baton:test:<job id>}, deadline a minute after the clock's time, no metadata, the
   * system clock.
   */
  public static Builder builder(Class<? extends JobArgs> type) {
    return new Builder(JobArgs.kindOf(type));
  }

  @Override
  public long jobId() {
    return jobId;
  }

  @Override
  public String kind() {
    return kind;
  }

  @Override
  public String queue() {
    return queue;
  }

  @Override
  public int attempt() {
    return attempt;
  }

  @Override
  public int maxAttempts() {
    return maxAttempts;
  }

  @Override
  public long fence() {
    return fence;
  }

  @Override
  public String idempotencyKey() {
    return idempotencyKey;
  }

  @Override
  public JsonNode metadata() {
    return metadata.deepCopy();
  }

  @Override
  public Instant deadline() {
    return deadline;
  }

  @Override
  public boolean isCancelled() {
    return cancelled;
  }

  @Override
  public void throwIfCancelled() throws InterruptedException {
    if (cancelled) {
      throw new InterruptedException("job " + jobId + " was cancelled");
    }
  }

  /** Moves the deadline to at least the clock's time plus {@code extra}. */
  @Override
  public void extendLease(Duration extra) {
    Objects.requireNonNull(extra, "extra");
    if (lost) {
      throw new LostBatonException(jobId, fence);
    }
    Instant to = clock.instant().plus(extra);
    synchronized (this) {
      if (to.isAfter(deadline)) {
        deadline = to;
      }
    }
  }

  /** Records {@code connection} as the one the handler completed the job in; writes nothing. */
  @Override
  public void completeIn(Connection connection) {
    Objects.requireNonNull(connection, "connection");
    if (lost) {
      throw new LostBatonException(jobId, fence);
    }
    completedIn = connection;
  }

  @Override
  public Logger logger() {
    return LoggerFactory.getLogger("dev.baton.job." + kind);
  }

  /** Keeps {@code output} as JSON ({@link #output()}); writes nothing. */
  @Override
  public void recordOutput(Object output) {
    if (lost) {
      throw new LostBatonException(jobId, fence);
    }
    this.output = MAPPER.valueToTree(output);
  }

  /** Runs {@code body} unless a step of this name already ran on this context; keeps its result. */
  @Override
  public <T> T step(String name, Class<T> type, Callable<T> body) throws Exception {
    Objects.requireNonNull(name, "name");
    if (steps.containsKey(name)) {
      return type.cast(steps.get(name));
    }
    T result = body.call();
    if (lost) {
      throw new LostBatonException(jobId, fence);
    }
    steps.put(name, result);
    return result;
  }

  /** As {@link #step}; the connection is not written to. */
  @Override
  public <T> T stepIn(Connection connection, String name, Class<T> type, Callable<T> body)
      throws Exception {
    Objects.requireNonNull(connection, "connection");
    return step(name, type, body);
  }

  /** Keeps the fraction ({@link #progress()}); writes nothing and throttles nothing. */
  @Override
  public void progress(double fraction, String message) {
    if (lost) {
      throw new LostBatonException(jobId, fence);
    }
    this.progress = fraction;
  }

  /** The dependencies the builder gave ({@link Builder#dependency}). */
  @Override
  public java.util.List<Dependency> dependencies() {
    return dependencies;
  }

  /** The output of the builder's dependency named {@code stepName}. */
  @Override
  public JsonNode dependencyOutput(String stepName) {
    for (Dependency d : dependencies) {
      if (stepName.equals(d.name())) {
        return d.output();
      }
    }
    throw new IllegalArgumentException(
        "no dependency output for job (id="
            + jobId
            + "): it does not wait for a step named \""
            + stepName
            + "\"");
  }

  /** The builder's dependencies counted by state. */
  @Override
  public Map<JobState, Long> dependencyCounts() {
    Map<JobState, Long> out = new java.util.EnumMap<>(JobState.class);
    for (Dependency d : dependencies) {
      out.merge(d.state(), 1L, Long::sum);
    }
    return out;
  }

  /** The output the handler recorded, or null. */
  public JsonNode output() {
    return output;
  }

  /** The latest progress fraction the handler reported, or -1 before any. */
  public double progress() {
    return progress;
  }

  /** The names of the steps the handler ran on this context. */
  public java.util.Set<String> steps() {
    return java.util.Set.copyOf(steps.keySet());
  }

  /**
   * Cancels the job: {@link #isCancelled()} becomes true and the handler's thread, if the handler
   * runs in {@link HandlerHarness}, is interrupted. Call it from another thread while the handler
   * runs, or before it starts (the handler then starts interrupted).
   */
  public void cancel() {
    cancelled = true;
    Thread t = handlerThread.get();
    if (t != null) {
      t.interrupt();
    }
  }

  /** Makes the holder lose the job: {@link #extendLease} and {@link #completeIn} then throw. */
  public void loseBaton() {
    lost = true;
  }

  /** The connection the handler called {@link #completeIn} with, or null. */
  public Connection completedIn() {
    return completedIn;
  }

  /** Marks {@code t} as the handler's thread; interrupts it at once if cancelled already. */
  void attach(Thread t) {
    handlerThread.set(t);
    if (cancelled) {
      t.interrupt();
    }
  }

  /** Forgets the handler's thread and clears an interrupt aimed at it. */
  void detach() {
    handlerThread.set(null);
    Thread.interrupted();
  }

  /** Builds a {@link TestJobContext}; each setter checks its value. Not thread-safe. */
  public static final class Builder {
    private final String kind;
    private long jobId = 1;
    private String queue = EnqueueOptions.DEFAULT_QUEUE;
    private int attempt = 1;
    private int maxAttempts = EnqueueOptions.DEFAULT_MAX_ATTEMPTS;
    private long fence = 1;
    private String idempotencyKey;
    private Instant deadline;
    private Clock clock = Clock.systemUTC();
    private final Map<String, Object> metadata = new LinkedHashMap<>();
    private final java.util.List<Dependency> dependencies = new java.util.ArrayList<>();

    private Builder(String kind) {
      this.kind = kind;
    }

    /** Adds a dependency the handler sees ({@link JobContext#dependencies()}); none by default. */
    public Builder dependency(Dependency dependency) {
      dependencies.add(Objects.requireNonNull(dependency, "dependency"));
      return this;
    }

    /** The job id; default 1. */
    public Builder jobId(long jobId) {
      this.jobId = jobId;
      return this;
    }

    /** The queue; default {@value EnqueueOptions#DEFAULT_QUEUE}. */
    public Builder queue(String queue) {
      this.queue = Objects.requireNonNull(queue, "queue");
      return this;
    }

    /**
     * The attempt, 1-based, and the attempts after which a failure discards the job.
     *
     * @throws IllegalArgumentException unless {@code 1 <= attempt <= maxAttempts}
     */
    public Builder attempt(int attempt, int maxAttempts) {
      if (attempt < 1 || attempt > maxAttempts) {
        throw new IllegalArgumentException(
            "attempt must be 1..maxAttempts, got attempt "
                + attempt
                + " of maxAttempts "
                + maxAttempts);
      }
      this.attempt = attempt;
      this.maxAttempts = maxAttempts;
      return this;
    }

    /** The fencing token of this claim; default 1. */
    public Builder fence(long fence) {
      this.fence = fence;
      return this;
    }

    /** The idempotency key; default {@code baton:test:<job id>}. */
    public Builder idempotencyKey(String key) {
      this.idempotencyKey = Objects.requireNonNull(key, "idempotencyKey");
      return this;
    }

    /** When the attempt times out; default a minute after the clock's time at build. */
    public Builder deadline(Instant deadline) {
      this.deadline = Objects.requireNonNull(deadline, "deadline");
      return this;
    }

    /** The clock {@link TestJobContext#extendLease} reads; default the system clock. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Adds one metadata entry; the value must be JSON-serialisable. */
    public Builder metadata(String key, Object value) {
      metadata.put(Objects.requireNonNull(key, "metadata key"), value);
      return this;
    }

    /** Builds the context. */
    public TestJobContext build() {
      return new TestJobContext(this);
    }
  }
}
