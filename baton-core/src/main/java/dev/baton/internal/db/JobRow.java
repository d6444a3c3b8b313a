package dev.baton.internal.db;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

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

  static JobRow read(ResultSet rs, boolean existing) throws SQLException {
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
}
