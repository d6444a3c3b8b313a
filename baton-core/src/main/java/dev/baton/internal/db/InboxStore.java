package dev.baton.internal.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The statement behind {@link dev.baton.inbox.Inbox}.
 *
 * <p>Not public API.
 */
public final class InboxStore {

  // Insert the key, or lock its row and raise its fence to the highest seen. The row lock makes two
  // concurrent deliveries of one key take turns: the second waits for the first's transaction and
  // then sees its row. xmax = 0 only on a fresh insert.
  private static final String APPLY =
      """
      INSERT INTO ${schema}.inbox AS i (idempotency_key, fence) VALUES (?, ?)
      ON CONFLICT (idempotency_key) DO UPDATE
        SET fence = greatest(i.fence, EXCLUDED.fence),
            last_seen_at = now(),
            repeats = i.repeats + 1
      RETURNING (xmax = 0) AS inserted, fence
      """;

  private final String apply;

  /** A store for {@code schema}. */
  public InboxStore(SchemaName schema) {
    this.apply = schema.expand(APPLY);
  }

  /** What {@link #apply} found: whether the key was new, and the highest fence now recorded. */
  public record Seen(boolean inserted, long highestFence) {}

  /** Records delivery of {@code key} with {@code fence} in {@code c}'s transaction. */
  public Seen apply(Connection c, String key, long fence) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(apply)) {
      ps.setString(1, key);
      ps.setLong(2, fence);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new Seen(rs.getBoolean(1), rs.getLong(2));
      }
    }
  }
}
