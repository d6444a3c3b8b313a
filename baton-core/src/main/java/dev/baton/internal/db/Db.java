package dev.baton.internal.db;

import dev.baton.BacklogCapExceededException;
import dev.baton.BatonException;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.postgresql.util.PSQLException;

/** Borrowing a connection and wrapping {@link SQLException} once, at this package's boundary. */
public final class Db {

  /** Work on one connection. */
  @FunctionalInterface
  public interface ConnectionWork<T> {
    /** Runs on {@code connection}. */
    T run(Connection connection) throws SQLException;
  }

  private static final String SET_STATEMENT_TIMEOUT =
      "SELECT set_config('statement_timeout', ?, false)";
  private static final String RESET_STATEMENT_TIMEOUT = "RESET statement_timeout";

  /** pgjdbc applies a network timeout to its socket at once; no executor is needed. */
  private static final Executor DIRECT = Runnable::run;

  private Db() {}

  /**
   * {@code dataSource} whose connections carry a network timeout of {@code timeout} while borrowed
   * ({@link Connection#setNetworkTimeout}; a pool such as HikariCP restores its own when the
   * connection is returned): a read that gets no answer for that long fails and the driver closes
   * the connection, instead of waiting on a socket that may never answer (a network partition, a
   * frozen proxy: on Linux defaults such a read hangs for about 15 minutes). A driver or pool that
   * does not support network timeouts gets none.
   */
  public static DataSource withNetworkTimeout(DataSource dataSource, Duration timeout) {
    return new NetworkTimeoutDataSource(
        dataSource, (int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
  }

  /**
   * Bounds a connection held for long (the heartbeater's): a network timeout of {@code network} and
   * a {@code statement_timeout} of {@code statement}, which {@link #unbound} takes off before the
   * connection goes back to the pool.
   */
  public static void bound(Connection c, Duration network, Duration statement) throws SQLException {
    setNetworkTimeout(c, (int) Math.min(Integer.MAX_VALUE, network.toMillis()));
    try (PreparedStatement ps = c.prepareStatement(SET_STATEMENT_TIMEOUT)) {
      ps.setString(1, Long.toString(Math.max(1, statement.toMillis())));
      ps.execute();
    }
  }

  /**
   * Takes {@link #bound}'s {@code statement_timeout} off an open connection; errors are ignored.
   */
  public static void unbound(Connection c) {
    try {
      if (!c.isClosed()) {
        try (PreparedStatement ps = c.prepareStatement(RESET_STATEMENT_TIMEOUT)) {
          ps.execute();
        }
      }
    } catch (SQLException ignored) {
      // the pool discards a broken connection
    }
  }

  private static void setNetworkTimeout(Connection c, int millis) throws SQLException {
    try {
      c.setNetworkTimeout(DIRECT, millis);
    } catch (SQLFeatureNotSupportedException | AbstractMethodError e) {
      // a driver without network timeouts: nothing to bound the reads with
    }
  }

  private record NetworkTimeoutDataSource(DataSource delegate, int millis) implements DataSource {
    @Override
    public Connection getConnection() throws SQLException {
      return bounded(delegate.getConnection());
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
      return bounded(delegate.getConnection(user, password));
    }

    private Connection bounded(Connection c) throws SQLException {
      try {
        setNetworkTimeout(c, millis);
        return c;
      } catch (SQLException | RuntimeException e) {
        c.close();
        throw e;
      }
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
      return delegate.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
      delegate.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
      delegate.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
      return delegate.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
      return delegate.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
      return iface.isInstance(delegate) ? iface.cast(delegate) : delegate.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
      return iface.isInstance(delegate) || delegate.isWrapperFor(iface);
    }
  }

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

  /**
   * Wraps {@code e} with a message naming what failed and the SQL state; a backlog cap's refusal
   * raised in SQL ({@code check_backlog_cap}, SQLSTATE BT001) becomes the typed exception.
   */
  public static BatonException wrap(String what, SQLException e) {
    if (BacklogCapExceededException.SQL_STATE.equals(e.getSQLState())
        && e instanceof PSQLException p
        && p.getServerErrorMessage() != null
        && p.getServerErrorMessage().getDetail() != null) {
      BacklogCapExceededException refused =
          BacklogCapStore.refusal(p.getServerErrorMessage().getDetail());
      refused.initCause(e);
      return refused;
    }
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
