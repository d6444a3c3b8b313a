package dev.baton.internal.executor;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.JobContext;
import dev.baton.LostBatonException;
import dev.baton.internal.held.RunningJob;
import dev.baton.internal.held.StopReason;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The {@link JobContext} of one attempt. Not public API. */
final class JobContextImpl implements JobContext {
  private final RunningJob rj;
  private final Holding holding;
  private volatile JsonNode metadata; // parsed lazily; a race only parses twice

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
  public Logger logger() {
    return LoggerFactory.getLogger("dev.baton.job." + kind());
  }
}
