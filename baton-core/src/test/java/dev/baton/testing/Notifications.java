package dev.baton.testing;

import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/** The payloads a connection that ran {@code LISTEN} has been sent, for tests of NOTIFY. */
public final class Notifications {
  private Notifications() {}

  /** The payloads the listener's backend has delivered so far, after a round trip to fetch them. */
  public static List<String> delivered(Connection listener) throws SQLException {
    try (Statement st = listener.createStatement()) {
      st.execute("SELECT 1");
    }
    List<String> out = new ArrayList<>();
    PGNotification[] got = listener.unwrap(PGConnection.class).getNotifications();
    if (got != null) {
      for (PGNotification g : got) {
        out.add(g.getParameter());
      }
    }
    return out;
  }

  /**
   * Every payload delivered until {@code last} arrives (within 10 s), {@code last} included.
   * Notifications reach a listener in commit order, so a last enqueue on a marker queue closes the
   * list of what the statements before it notified.
   */
  public static List<String> until(Connection listener, String last) {
    List<String> heard = new ArrayList<>();
    await("the notification of " + last)
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              heard.addAll(delivered(listener));
              return heard.contains(last);
            });
    return heard;
  }
}
