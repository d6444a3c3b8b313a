package dev.baton.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * An embedded PostgreSQL of a test's own that can be restarted: it keeps its data directory and
 * port across {@link #restart()}, so clients reconnect to the same URL and find their data. Closing
 * it stops the server and deletes the data directory.
 *
 * <p>Not thread-safe: one thread starts, restarts and closes it.
 */
public final class RestartablePostgres implements AutoCloseable {
  private final Path dataDirectory;
  private final int port;
  private EmbeddedPostgres server;

  private RestartablePostgres(Path dataDirectory, int port) {
    this.dataDirectory = dataDirectory;
    this.port = port;
  }

  /** Initialises a data directory in a new temporary directory and starts a server on it. */
  public static RestartablePostgres start() throws IOException {
    RestartablePostgres pg =
        new RestartablePostgres(Files.createTempDirectory("baton-restartable-pg-"), freePort());
    try {
      pg.server = pg.newServer();
    } catch (IOException | RuntimeException e) {
      pg.deleteDataDirectory();
      throw e;
    }
    return pg;
  }

  /** The JDBC URL of the {@code postgres} database as the superuser; the same across restarts. */
  public String jdbcUrl() {
    return "jdbc:postgresql://localhost:" + port + "/postgres?user=postgres";
  }

  /**
   * Stops the server (fast shutdown: every session is terminated) and starts it again on the same
   * port and data directory. Returns how long the server was unavailable.
   */
  public Duration restart() throws IOException {
    long start = System.nanoTime();
    server.close();
    server = null;
    server = newServer();
    return Duration.ofNanos(System.nanoTime() - start);
  }

  @Override
  public void close() throws IOException {
    try {
      if (server != null) {
        server.close();
        server = null;
      }
    } finally {
      deleteDataDirectory();
    }
  }

  private EmbeddedPostgres newServer() throws IOException {
    return EmbeddedPostgres.builder()
        .setPort(port)
        .setDataDirectory(dataDirectory)
        .setCleanDataDirectory(false)
        .setPGStartupWait(Duration.ofSeconds(30))
        .setServerConfig("max_connections", "200")
        .setServerConfig("fsync", "off")
        .setServerConfig("synchronous_commit", "off")
        .setServerConfig("full_page_writes", "off")
        .start();
  }

  private void deleteDataDirectory() throws IOException {
    if (!Files.exists(dataDirectory)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dataDirectory)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
