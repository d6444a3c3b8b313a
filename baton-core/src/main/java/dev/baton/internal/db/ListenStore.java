package dev.baton.internal.db;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The statements of the client's one listening connection ({@code internal.notify.Notifier}).
 *
 * <p>Not public API.
 */
public final class ListenStore {

  private static final String UNLISTEN_ALL = "UNLISTEN *";

  private ListenStore() {}

  /**
   * Listens on {@code channels} on {@code c} (in autocommit). Each is a channel of a {@link
   * SchemaName} (a validated identifier), quoted here: LISTEN takes no bind parameter.
   */
  public static void listen(Connection c, String... channels) throws SQLException {
    try (Statement st = c.createStatement()) {
      for (String channel : channels) {
        st.execute("LISTEN \"" + channel + "\"");
      }
    }
  }

  /** Stops listening on every channel of {@code c}. */
  public static void unlistenAll(Connection c) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute(UNLISTEN_ALL);
    }
  }
}
