package dev.baton.testing;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A PostgreSQL server of a test's own, run from the PostgreSQL binaries of this machine (not an
 * embedded one): it can crash ({@code pg_ctl stop -m immediate}, or SIGKILL of the postmaster and
 * its children, as when the host dies), restart on the same data, stream to a standby made with
 * {@code pg_basebackup}, and be promoted.
 *
 * <p>The binaries are {@code BATON_PG_BIN} when set, else the newest {@code
 * /usr/lib/postgresql/<version>/bin} (Debian's packages) with {@code pg_basebackup} in it. As root,
 * which PostgreSQL refuses, every command runs in a user namespace of its own ({@code unshare -U},
 * as the embedded server does): there it is not root, and owns its data directory. Sockets live in
 * the server's own directory; it listens on 127.0.0.1 on a free port, trusts every local user, and
 * its superuser is {@code postgres}.
 *
 * <p>Not thread-safe: one thread drives it.
 */
public final class LocalPostgres implements AutoCloseable {
  private static final long COMMAND_TIMEOUT_S = 120;

  private final Path bin;
  private final Path dir;
  private final int port;
  private final List<String> settings;

  private LocalPostgres(Path bin, Path dir, int port, List<String> settings) {
    this.bin = bin;
    this.dir = dir;
    this.port = port;
    this.settings = settings;
  }

  /** The directory of the binaries, or empty when this machine has none. */
  public static Optional<Path> binaries() {
    String env = System.getenv("BATON_PG_BIN");
    if (env != null && !env.isBlank()) {
      return Optional.of(Path.of(env));
    }
    Path debian = Path.of("/usr/lib/postgresql");
    if (!Files.isDirectory(debian)) {
      return Optional.empty();
    }
    try (Stream<Path> versions = Files.list(debian)) {
      return versions
          .filter(v -> v.getFileName().toString().matches("\\d+"))
          .filter(v -> Files.isExecutable(v.resolve("bin/pg_basebackup")))
          .max(Comparator.comparingInt(v -> Integer.parseInt(v.getFileName().toString())))
          .map(v -> v.resolve("bin"));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /**
   * Initialises a new data directory under {@code parent} and starts a server on it with {@code
   * settings} ({@code name=value}, given on its command line, so a standby copied from it does not
   * inherit them).
   */
  public static LocalPostgres startPrimary(
      Path bin, Path parent, String name, List<String> settings)
      throws IOException, InterruptedException {
    LocalPostgres pg = new LocalPostgres(bin, parent.resolve(name), freePort(), settings);
    Files.createDirectories(pg.dir);
    pg.run("initdb", "-D", pg.data().toString(), "-U", "postgres", "-A", "trust", "-E", "UTF8");
    pg.start();
    return pg;
  }

  /**
   * Copies this server with {@code pg_basebackup} into a standby under {@code parent} that streams
   * from it ({@code -R}: its connection settings are written for it), and starts it with {@code
   * standbySettings} (e.g. {@code cluster_name}, the name {@code synchronous_standby_names} knows
   * it by).
   */
  public LocalPostgres startStandby(Path parent, String name, List<String> standbySettings)
      throws IOException, InterruptedException {
    LocalPostgres standby =
        new LocalPostgres(bin, parent.resolve(name), freePort(), standbySettings);
    Files.createDirectories(standby.dir);
    run(
        "pg_basebackup",
        "-h",
        "127.0.0.1",
        "-p",
        Integer.toString(port),
        "-U",
        "postgres",
        "-D",
        standby.data().toString(),
        "-X",
        "stream",
        "-R",
        "-c",
        "fast");
    standby.start();
    return standby;
  }

  /** The JDBC URL of the {@code postgres} database as the superuser. */
  public String jdbcUrl() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
  }

  /** {@code 127.0.0.1:<port>}, for a multi-host URL. */
  public String hostAndPort() {
    return "127.0.0.1:" + port;
  }

  /** Starts the server on its data directory and waits until it accepts connections. */
  public void start() throws IOException, InterruptedException {
    List<String> opts = new ArrayList<>();
    opts.add("-p " + port);
    opts.add("-c listen_addresses=127.0.0.1");
    opts.add("-c unix_socket_directories=" + dir);
    for (String s : settings) {
      opts.add("-c " + s);
    }
    run(
        "pg_ctl",
        "start",
        "-w",
        "-t",
        "60",
        "-D",
        data().toString(),
        "-l",
        dir.resolve("server.log").toString(),
        "-o",
        String.join(" ", opts));
  }

  /** Stops the server without a shutdown checkpoint ({@code -m immediate}): a crash. */
  public void stopImmediately() throws IOException, InterruptedException {
    run("pg_ctl", "stop", "-w", "-m", "immediate", "-D", data().toString());
  }

  /**
   * SIGKILLs the postmaster and every process it started, as when its host dies: no process of the
   * server is left to answer or to finish a commit.
   */
  public void killHard() throws IOException, InterruptedException {
    long postmaster = Long.parseLong(Files.readAllLines(data().resolve("postmaster.pid")).get(0));
    List<ProcessHandle> all = new ArrayList<>();
    ProcessHandle.of(postmaster)
        .ifPresent(
            p -> {
              all.add(p);
              p.children().forEach(all::add);
            });
    new ProcessBuilder("kill", "-KILL", Long.toString(postmaster)).inheritIO().start().waitFor();
    for (ProcessHandle p : all) {
      p.destroyForcibly();
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    for (ProcessHandle p : all) {
      while (p.isAlive()) {
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException("server process " + p.pid() + " survived SIGKILL");
        }
        Thread.sleep(10);
      }
    }
  }

  /** Promotes a standby to a primary and waits until it is one. */
  public void promote() throws IOException, InterruptedException {
    run("pg_ctl", "promote", "-w", "-t", "60", "-D", data().toString());
  }

  /** The server's log so far, for failure messages. */
  public String log() {
    try {
      return Files.readString(dir.resolve("server.log"));
    } catch (IOException e) {
      return "<no log: " + e + ">";
    }
  }

  /** Stops the server if it runs (immediately) and deletes its directory. */
  @Override
  public void close() throws IOException, InterruptedException {
    if (Files.exists(data().resolve("postmaster.pid"))) {
      try {
        stopImmediately();
      } catch (IllegalStateException e) {
        // not running after all (killed)
      }
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  private Path data() {
    return dir.resolve("data");
  }

  /** Runs one of the binaries; throws with its output when it fails. */
  private void run(String program, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    if ("root".equals(System.getProperty("user.name"))) {
      cmd.add("unshare");
      cmd.add("-U");
    }
    cmd.add(bin.resolve(program).toString());
    cmd.addAll(List.of(args));
    Path out = Files.createTempFile(dir, program + "-", ".out");
    Process p =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(out.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .start();
    if (!p.waitFor(COMMAND_TIMEOUT_S, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException(
          String.join(" ", cmd) + " did not finish in " + COMMAND_TIMEOUT_S + " s");
    }
    if (p.exitValue() != 0) {
      throw new IllegalStateException(
          String.join(" ", cmd)
              + " exited "
              + p.exitValue()
              + ":\n"
              + Files.readString(out)
              + "\nserver log:\n"
              + log());
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
