package dev.baton.cli;

import dev.baton.Secrets;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Map;
import java.util.Properties;
import java.util.logging.Logger;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The database the command works on: its URL (option or environment), checked for shape before any
 * connection, and a {@link DataSource} that opens one plain connection per use (a command makes a
 * handful of statements; a pool would only add start-up time).
 */
final class Database {

  /** The environment variable holding the JDBC URL when --database-url is not given. */
  static final String ENV_URL = "BATON_DATABASE_URL";

  static final String EXAMPLE_URL =
      "jdbc:postgresql://localhost:5432/app?user=baton&password=secret";

  /** Seconds to open the TCP connection: 10 (the URL's {@code connectTimeout} overrides it). */
  static final int CONNECT_TIMEOUT_S = 10;

  /**
   * Seconds to connect and log in, a server that accepts and never answers included: 10 (the URL's
   * {@code loginTimeout} overrides it).
   */
  static final int LOGIN_TIMEOUT_S = 10;

  /**
   * Seconds a command waits for any answer of the server once connected: 300 (the URL's {@code
   * socketTimeout} overrides it; 0 waits for ever, e.g. for a migration of a very large table).
   */
  static final int SOCKET_TIMEOUT_S = 300;

  private Database() {}

  /**
   * The driver properties of every connection the command opens: its application name and its
   * timeouts ({@link #CONNECT_TIMEOUT_S}, {@link #LOGIN_TIMEOUT_S}, and {@link #SOCKET_TIMEOUT_S}
   * unless {@code socketTimeout} is false: a worker's pool, whose client sets a network timeout on
   * every connection it borrows). Parameters in the URL take precedence.
   */
  static Properties driverProperties(boolean socketTimeout) {
    Properties p = new Properties();
    p.setProperty("ApplicationName", "baton-cli");
    p.setProperty("connectTimeout", String.valueOf(CONNECT_TIMEOUT_S));
    p.setProperty("loginTimeout", String.valueOf(LOGIN_TIMEOUT_S));
    if (socketTimeout) {
      p.setProperty("socketTimeout", String.valueOf(SOCKET_TIMEOUT_S));
    }
    return p;
  }

  /**
   * The URL from the option, else from {@link #ENV_URL}.
   *
   * @throws UsageException when neither is set, or the URL is not a PostgreSQL JDBC URL
   */
  static String resolveUrl(String option, Map<String, String> env) {
    String url = option;
    String source = "--database-url";
    if (url == null || url.isBlank()) {
      url = env.get(ENV_URL);
      source = ENV_URL;
    }
    if (url == null || url.isBlank()) {
      throw new UsageException(
          "no database given; pass --database-url JDBC_URL or set "
              + ENV_URL
              + ", e.g. export "
              + ENV_URL
              + "='"
              + EXAMPLE_URL
              + "'");
    }
    url = url.strip();
    if (url.indexOf('\uFFFD') >= 0) {
      throw new UsageException(
          source
              + " is not valid UTF-8 text: it holds U+FFFD, which stands for bytes that are not"
              + " UTF-8; write the URL in UTF-8 (%-encode other bytes of a password)");
    }
    if (!url.startsWith("jdbc:postgresql:")) {
      String hint =
          url.startsWith("postgres://") || url.startsWith("postgresql://")
              ? "; write it as a JDBC URL with user and password as parameters, e.g. "
              : ", e.g. ";
      throw new UsageException(
          source
              + " must be a JDBC URL starting with jdbc:postgresql:, got '"
              + redact(url, url)
              + "'"
              + hint
              + EXAMPLE_URL);
    }
    int query = url.indexOf('?');
    if (url.substring(0, query < 0 ? url.length() : query).contains("@")) {
      // The driver has no user info: it would look up "user:password@host" as a host name.
      throw new UsageException(
          source
              + " must name the user and password as parameters, not as user info before the"
              + " host, got '"
              + redact(url, url)
              + "'; e.g. "
              + EXAMPLE_URL);
    }
    if (org.postgresql.Driver.parseURL(url, new Properties()) == null) {
      throw new UsageException(
          source
              + " is not a valid PostgreSQL JDBC URL: '"
              + redact(url, url)
              + "' (check the host, port and parameters); e.g. "
              + EXAMPLE_URL);
    }
    return url;
  }

  /**
   * {@code text} (a URL, a message, a stack trace) with every password masked by {@link
   * Secrets#mask(String, String)}, those {@code url} holds included; the example of how to pass
   * them ({@link #EXAMPLE_URL}) is shown as it is.
   */
  static String redact(String text, String url) {
    if (text == null) {
      return null;
    }
    StringBuilder out = new StringBuilder();
    String[] parts = text.split(Pattern.quote(EXAMPLE_URL), -1);
    for (int i = 0; i < parts.length; i++) {
      out.append(i > 0 ? EXAMPLE_URL : "").append(Secrets.mask(parts[i], url));
    }
    return out.toString();
  }

  /** The id recorded as who paused a queue or retried a job: {@code cli:<user>@<host>}. */
  static String operatorId() {
    String user = System.getProperty("user.name", "unknown");
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (Exception e) {
      host = "localhost";
    }
    String id = ("cli:" + user + "@" + host).replaceAll("[^\\x21-\\x7e]", "_");
    return id.length() > 128 ? id.substring(0, 128) : id;
  }

  /** A data source opening a new connection to {@code url} on every call. */
  static DataSource dataSource(String url) {
    return new PlainDataSource(url);
  }

  /** A data source for work that needs none (printing migrations); it refuses to connect. */
  static DataSource none() {
    return new PlainDataSource(null);
  }

  /** One connection per {@link #getConnection()}, closed by its user. */
  private static final class PlainDataSource implements DataSource {
    private final String url;
    private int loginTimeoutSeconds;

    PlainDataSource(String url) {
      this.url = url;
    }

    @Override
    public Connection getConnection() throws SQLException {
      if (url == null) {
        throw new IllegalStateException("this command does not use the database");
      }
      return DriverManager.getConnection(url, driverProperties(true));
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
      Properties p = driverProperties(true);
      p.setProperty("user", user);
      p.setProperty("password", password);
      return DriverManager.getConnection(url, p);
    }

    @Override
    public PrintWriter getLogWriter() {
      return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
      // not used
    }

    @Override
    public void setLoginTimeout(int seconds) {
      this.loginTimeoutSeconds = seconds;
    }

    @Override
    public int getLoginTimeout() {
      return loginTimeoutSeconds;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
      throw new SQLFeatureNotSupportedException("no java.util.logging here");
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
      if (type.isInstance(this)) {
        return type.cast(this);
      }
      throw new SQLException("not a wrapper of " + type.getName());
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
      return type.isInstance(this);
    }
  }
}
