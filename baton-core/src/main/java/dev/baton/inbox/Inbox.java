package dev.baton.inbox;

import dev.baton.InvalidJobException;
import dev.baton.internal.db.Db;
import dev.baton.internal.db.InboxStore;
import dev.baton.internal.db.SchemaName;
import dev.baton.migrate.Migrator;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Receiver-side dedupe for a service on PostgreSQL that receives Baton's at-least-once deliveries
 * (a webhook endpoint, a payment service): "apply key K with fence F at most once; refuse a fence
 * lower than the highest seen for K".
 *
 * <p>Call {@link #apply} inside the same transaction as the effect, then apply the effect only on
 * {@link Outcome#APPLY}. Because the inbox row and the effect commit or roll back together, the
 * effect happens once per key however often the job is delivered. Two concurrent deliveries of one
 * key take turns on the key's row lock: the second sees the first's outcome once it commits.
 *
 * <pre>{@code
 * try (Connection c = dataSource.getConnection()) {
 *   c.setAutoCommit(false);
 *   if (inbox.apply(c, key, fence) == Inbox.Outcome.APPLY) {
 *     sendTheEmail(c, ...);
 *   }
 *   c.commit();
 * }
 * }</pre>
 *
 * <p>Create the table with {@link #migrator(DataSource, String)}.
 */
public final class Inbox {

  /** What the receiver should do with a delivery. */
  public enum Outcome {
    /** First delivery of this key: apply the effect. */
    APPLY,
    /** The key was applied before, by this or an older holder: do nothing, answer as before. */
    DUPLICATE,
    /** The fence is lower than the highest seen for this key: a stale holder; refuse it. */
    STALE
  }

  private final InboxStore store;

  /**
   * An inbox whose table lives in {@code schema}.
   *
   * @throws dev.baton.InvalidConfigException if the schema name is not valid
   */
  public Inbox(String schema) {
    this.store = new InboxStore(SchemaName.of(schema));
  }

  /** The migrator that creates this inbox's table in {@code schema}. */
  public static Migrator migrator(DataSource dataSource, String schema) {
    return Migrator.forInbox(dataSource, schema);
  }

  /**
   * Records a delivery of {@code key} with {@code fence} in {@code connection}'s current
   * transaction and says what to do with it. The first delivery of a key returns {@link
   * Outcome#APPLY}; a later one returns {@link Outcome#STALE} when its fence is lower than the
   * highest recorded, else {@link Outcome#DUPLICATE}. Every delivery raises the recorded fence to
   * the highest seen.
   *
   * @throws InvalidJobException if the key is null, blank or longer than 255 characters
   * @throws dev.baton.BatonException if the statement fails (the caller's transaction is then
   *     aborted and must roll back)
   */
  public Outcome apply(Connection connection, String key, long fence) {
    Objects.requireNonNull(connection, "connection");
    if (key == null || key.isBlank() || key.length() > 255) {
      throw new InvalidJobException(
          "cannot apply inbox delivery: key must be 1-255 characters and not blank, got "
              + (key == null ? "null" : key.length() + " characters"));
    }
    try {
      InboxStore.Seen seen = store.apply(connection, key, fence);
      if (seen.inserted()) {
        return Outcome.APPLY;
      }
      return seen.highestFence() > fence ? Outcome.STALE : Outcome.DUPLICATE;
    } catch (SQLException e) {
      throw Db.wrap("cannot apply inbox delivery (key=" + key + ", fence=" + fence + ")", e);
    }
  }
}
