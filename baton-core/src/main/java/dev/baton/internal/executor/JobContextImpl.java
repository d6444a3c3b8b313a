package dev.baton.internal.executor;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.Dependency;
import dev.baton.InvalidJobException;
import dev.baton.JobContext;
import dev.baton.JobState;
import dev.baton.LostBatonException;
import dev.baton.internal.db.WorkflowStore;
import dev.baton.internal.held.RunningJob;
import dev.baton.internal.held.StopReason;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The {@link JobContext} of one attempt. Not public API. */
final class JobContextImpl implements JobContext {
  private final RunningJob rj;
  private final Holding holding;
  private volatile JsonNode metadata; // parsed lazily; a race only parses twice
  // The results of the steps recorded so far, by name: read from the row at the first step of the
  // attempt (only handlers that use steps pay that read), then kept up to date by this attempt.
  private volatile Map<String, JsonNode> steps;
  private long lastProgressNanos; // guarded by this; 0 before the first report is written

  /** The shortest time between two progress writes of one attempt. */
  static final Duration PROGRESS_INTERVAL = Duration.ofSeconds(1);

  /** The longest progress message, in characters. */
  static final int MAX_PROGRESS_MESSAGE = 200;

  JobContextImpl(RunningJob rj, Holding holding) {
    this.rj = rj;
    this.holding = holding;
  }

  @Override
  public long jobId() {
    return rj.id();
  }

  @Override
  public String kind() {
    return rj.job().kind();
  }

  @Override
  public String queue() {
    return rj.job().queue();
  }

  @Override
  public int attempt() {
    return rj.job().attempt();
  }

  @Override
  public int maxAttempts() {
    return rj.job().maxAttempts();
  }

  @Override
  public long fence() {
    return rj.fence();
  }

  @Override
  public String idempotencyKey() {
    String key = rj.job().idempotencyKey();
    return key != null ? key : "baton:" + holding.schema() + ":" + rj.id();
  }

  @Override
  public JsonNode metadata() {
    if (metadata == null) {
      try {
        metadata = holding.mapper().readTree(rj.job().metadata());
      } catch (Exception e) {
        metadata = holding.mapper().createObjectNode();
      }
    }
    return metadata.deepCopy();
  }

  @Override
  public Instant deadline() {
    return rj.deadline();
  }

  @Override
  public boolean isCancelled() {
    return rj.stopReason() != null;
  }

  @Override
  public void throwIfCancelled() throws InterruptedException {
    StopReason r = rj.stopReason();
    if (r != null) {
      throw new InterruptedException("job " + rj.id() + " must stop: " + r.name().toLowerCase());
    }
  }

  @Override
  public void extendLease(Duration extra) {
    Objects.requireNonNull(extra, "extra");
    if (extra.isNegative() || extra.isZero()) {
      throw new IllegalArgumentException("extendLease needs a positive duration, got " + extra);
    }
    Instant stored = holding.extendIfHeld(rj, extra);
    if (stored == null) {
      rj.stop(StopReason.LOST);
      throw new LostBatonException(rj.id(), rj.fence());
    }
    rj.leaseKnownUntilNanos(
        Math.max(rj.leaseKnownUntilNanos(), System.nanoTime() + extra.toNanos()));
    holding.rescheduleTimeout(
        rj, Math.max(rj.deadlineNanos(), System.nanoTime() + Holding.saturatedNanos(extra)));
  }

  @Override
  public void completeIn(Connection connection) {
    Objects.requireNonNull(connection, "connection");
    if (!holding.completeIfHeld(connection, rj)) {
      throw new LostBatonException(rj.id(), rj.fence());
    }
    rj.markCompletedInTransaction();
  }

  @Override
  public void recordOutput(Object output) {
    String json = json("output", output);
    if (!holding.recordOutputIfHeld(rj, json)) {
      throw lost();
    }
  }

  @Override
  public <T> T step(String name, Class<T> type, Callable<T> body) throws Exception {
    return runStep(null, name, type, body);
  }

  @Override
  public <T> T stepIn(Connection connection, String name, Class<T> type, Callable<T> body)
      throws Exception {
    Objects.requireNonNull(connection, "connection");
    return runStep(connection, name, type, body);
  }

  private <T> T runStep(Connection c, String name, Class<T> type, Callable<T> body)
      throws Exception {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(body, "body");
    if (name == null || name.isBlank() || name.length() > 128) {
      throw new IllegalArgumentException(
          "cannot run step of job (id="
              + rj.id()
              + "): a step name must be 1 to 128 characters, got "
              + (name == null ? "null" : "\"" + name + "\""));
    }
    JsonNode recorded = recordedSteps().get(name);
    if (recorded != null) {
      return holding.mapper().treeToValue(recorded, type);
    }
    T result = body.call();
    String json = json("step \"" + name + "\" result", result);
    boolean held =
        c == null
            ? holding.recordStepIfHeld(rj, name, json)
            : holding.recordStepIfHeld(c, rj, name, json);
    if (!held) {
      throw lost();
    }
    if (c == null) {
      // A step recorded in the caller's transaction is not remembered: it may still roll back.
      steps.put(name, holding.mapper().readTree(json));
    }
    return result;
  }

  private Map<String, JsonNode> recordedSteps() throws JsonProcessingException {
    Map<String, JsonNode> s = steps;
    if (s == null) {
      String json = holding.readStepsIfHeld(rj);
      if (json == null) {
        throw lost();
      }
      s = new ConcurrentHashMap<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = holding.mapper().readTree(json).fields();
          it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        s.put(e.getKey(), e.getValue().path("result"));
      }
      steps = s;
    }
    return s;
  }

  @Override
  public void progress(double fraction, String message) {
    if (!(fraction >= 0 && fraction <= 1)) {
      throw new IllegalArgumentException(
          "cannot report progress of job (id="
              + rj.id()
              + "): fraction must be between 0 and 1, got "
              + fraction);
    }
    if (message != null && message.length() > MAX_PROGRESS_MESSAGE) {
      throw new IllegalArgumentException(
          "cannot report progress of job (id="
              + rj.id()
              + "): message must be at most "
              + MAX_PROGRESS_MESSAGE
              + " characters, got "
              + message.length());
    }
    long now = System.nanoTime();
    synchronized (this) {
      if (fraction < 1
          && lastProgressNanos != 0
          && now - lastProgressNanos < PROGRESS_INTERVAL.toNanos()) {
        return; // throttled: a tight loop does not write a row version per report
      }
      lastProgressNanos = now;
    }
    if (!holding.recordProgressIfHeld(rj, fraction, message)) {
      throw lost();
    }
  }

  /** {@code value} as JSON text within the output size limit. */
  private String json(String what, Object value) {
    String json;
    try {
      json = holding.mapper().writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new InvalidJobException(
          "cannot record " + what + " of job (id=" + rj.id() + "): " + e.getOriginalMessage(), e);
    }
    int bytes = json.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > holding.maxOutputBytes()) {
      throw new InvalidJobException(
          "cannot record "
              + what
              + " of job (id="
              + rj.id()
              + "): it is "
              + bytes
              + " bytes of JSON, over the limit of "
              + holding.maxOutputBytes()
              + " (BatonConfig maxArgsBytes); store large data elsewhere and record a reference");
    }
    return json;
  }

  @Override
  public List<Dependency> dependencies() {
    List<Dependency> out = new ArrayList<>();
    for (WorkflowStore.EdgeRow e : holding.dependencies(rj.id())) {
      out.add(
          new Dependency(
              e.id(),
              e.name(),
              e.state() == null ? JobState.COMPLETED : JobState.fromDb(e.state()),
              parse(e.output())));
    }
    return out;
  }

  @Override
  public JsonNode dependencyOutput(String stepName) {
    Objects.requireNonNull(stepName, "stepName");
    List<String> names = new ArrayList<>();
    for (Dependency d : dependencies()) {
      if (stepName.equals(d.name())) {
        return d.output();
      }
      if (d.name() != null) {
        names.add(d.name());
      }
    }
    throw new IllegalArgumentException(
        "no dependency output for job (id="
            + rj.id()
            + "): it does not wait for a step named \""
            + stepName
            + "\"; the steps it waits for are "
            + names);
  }

  @Override
  public Map<JobState, Long> dependencyCounts() {
    Map<JobState, Long> out = new EnumMap<>(JobState.class);
    holding.dependencyCounts(rj.id()).forEach((state, n) -> out.put(JobState.fromDb(state), n));
    return out;
  }

  private JsonNode parse(String json) {
    if (json == null) {
      return null;
    }
    try {
      return holding.mapper().readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("stored output is not JSON: " + e.getOriginalMessage(), e);
    }
  }

  /** Stops the handler as having lost its job, and the exception to throw. */
  private LostBatonException lost() {
    rj.stop(StopReason.LOST);
    return new LostBatonException(rj.id(), rj.fence());
  }

  @Override
  public Logger logger() {
    return LoggerFactory.getLogger("dev.baton.job." + kind());
  }
}
