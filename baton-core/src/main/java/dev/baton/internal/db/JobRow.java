package dev.baton.internal.db;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.BatonException;
import dev.baton.Job;
import dev.baton.JobError;
import dev.baton.JobState;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * One job row as read, with JSON columns as text. {@code existing} is set when an enqueue's
 * idempotency key matched this row instead of inserting.
 *
 * <p>Not public API.
 */
public record JobRow(
    long id,
    String queue,
    String kind,
    String args,
    String state,
    int priority,
    int attempt,
    int maxAttempts,
    Instant scheduledAt,
    Instant attemptedAt,
    String attemptedBy,
    Instant leaseExpiresAt,
    Instant deadlineAt,
    long fence,
    String idempotencyKey,
    String errors,
    String metadata,
    Instant createdAt,
    Instant finalizedAt,
    boolean existing) {

  /** Reads a row selected with {@link JobStore#JOB_COLUMNS}. */
  public static JobRow read(ResultSet rs, boolean existing) throws SQLException {
    return new JobRow(
        rs.getLong("id"),
        rs.getString("queue"),
        rs.getString("kind"),
        rs.getString("args"),
        rs.getString("state"),
        rs.getInt("priority"),
        rs.getInt("attempt"),
        rs.getInt("max_attempts"),
        JobStore.instant(rs, "scheduled_at"),
        JobStore.instant(rs, "attempted_at"),
        rs.getString("attempted_by"),
        JobStore.instant(rs, "lease_expires_at"),
        JobStore.instant(rs, "deadline_at"),
        rs.getLong("fence"),
        rs.getString("idempotency_key"),
        rs.getString("errors"),
        rs.getString("metadata"),
        JobStore.instant(rs, "created_at"),
        JobStore.instant(rs, "finalized_at"),
        existing);
  }

  /** The public view of this row; its JSON columns parsed with {@code mapper}. */
  public Job toJob(ObjectMapper mapper) {
    try {
      return new Job(
          id,
          queue,
          kind,
          mapper.readTree(args),
          JobState.fromDb(state),
          priority,
          attempt,
          maxAttempts,
          scheduledAt,
          attemptedAt,
          attemptedBy,
          leaseExpiresAt,
          deadlineAt,
          fence,
          idempotencyKey,
          errors(mapper),
          // a job enqueued without metadata, the common case, skips a parse
          "{}".equals(metadata) ? mapper.createObjectNode() : mapper.readTree(metadata),
          createdAt,
          finalizedAt);
    } catch (JsonProcessingException e) {
      throw new BatonException("cannot read job (id=" + id + "): stored JSON is invalid", e);
    }
  }

  private List<JobError> errors(ObjectMapper mapper) throws JsonProcessingException {
    if ("[]".equals(errors)) {
      return List.of(); // every new job, and every job that has not failed yet
    }
    List<JobError> errs = new ArrayList<>();
    for (JsonNode e : mapper.readTree(errors)) {
      errs.add(
          new JobError(
              e.path("attempt").asInt(),
              e.hasNonNull("at") ? parseInstant(e.get("at").asText()) : null,
              e.path("error").asText(null),
              e.path("message").asText(null),
              e.path("trace").asText(null)));
    }
    return List.copyOf(errs);
  }

  private static Instant parseInstant(String s) {
    try {
      return OffsetDateTime.parse(s).toInstant();
    } catch (RuntimeException e) {
      return null;
    }
  }
}
