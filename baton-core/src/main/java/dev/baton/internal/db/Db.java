package dev.baton.internal.db;

import dev.baton.BatonException;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/** Borrowing a connection and wrapping {@link SQLException} once, at this package's boundary. */
public final class Db {

  /** Work on one connection. */
  @FunctionalInterface
  public interface ConnectionWork<T> {
    /** Runs on {@code connection}. */
    T run(Connection connection) throws SQLException;
  }

  private Db() {}

  /**
   * Runs {@code work} on a connection from {@code dataSource} in its own transaction: in autocommit
   * when the pool hands out autocommit connections, else committed here. The connection goes back
   * to the pool before this returns.
   */
  public static <T> T inTransaction(DataSource dataSource, String what, ConnectionWork<T> work) {
    try (Connection c = dataSource.getConnection()) {
      boolean autoCommit = c.getAutoCommit();
      try {
        T result = work.run(c);
        if (!autoCommit) {
          c.commit();
        }
        return result;
      } catch (SQLException | RuntimeException e) {
        if (!autoCommit) {
          rollbackQuietly(c, e);
        }
        throw e;
      }
    } catch (SQLException e) {
      throw wrap(what, e);
    }
  }

  /**
   * Runs {@code work} on a connection from {@code dataSource} in one explicit transaction (several
   * statements, committed together, rolled back on any error), then restores the connection's
   * autocommit setting.
   */
  public static <T> T inExplicitTransaction(
      DataSource dataSource, String what, ConnectionWork<T> work) {
    try (Connection c = dataSource.getConnection()) {
      return committed(c, work, c.getAutoCommit());
    } catch (SQLException e) {
      throw wrap(what, e);
    }
  }

  /**
   * Runs {@code work} on {@code c} in one transaction: the caller's, when {@code c} is in one; else
   * an explicit one, committed (or rolled back on any error) here, after which {@code c} is back in
   * autocommit.
   */
  public static <T> T inOneTransaction(Connection c, ConnectionWork<T> work) throws SQLException {
    return c.getAutoCommit() ? committed(c, work, true) : work.run(c);
  }

  /**
   * Runs {@code work} on {@code c} in an explicit transaction, committed here or rolled back on any
   * error, then sets {@code c}'s autocommit to {@code restoreTo}.
   */
  private static <T> T committed(Connection c, ConnectionWork<T> work, boolean restoreTo)
      throws SQLException {
    c.setAutoCommit(false);
    try {
      T result = work.run(c);
      c.commit();
      return result;
    } catch (SQLException | RuntimeException e) {
      rollbackQuietly(c, e);
      throw e;
    } finally {
      restoreAutoCommit(c, restoreTo);
    }
  }

  private static void restoreAutoCommit(Connection c, boolean autoCommit) {
    try {
      c.setAutoCommit(autoCommit);
    } catch (SQLException ignored) {
      // the pool discards a broken connection
    }
  }

  /** Wraps {@code e} with a message naming what failed and the SQL state. */
  public static BatonException wrap(String what, SQLException e) {
    return new BatonException(
        what + ": " + e.getMessage() + " (SQL state " + e.getSQLState() + ")", e);
  }

  private static void rollbackQuietly(Connection c, Exception cause) {
    try {
      c.rollback();
    } catch (SQLException r) {
      cause.addSuppressed(r);
    }
  }
}
