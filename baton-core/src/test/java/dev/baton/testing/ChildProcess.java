package dev.baton.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A {@link WorkerMain} running in a child JVM: its stdout lines, its stdin, and signals to it.
 * Closing it kills the process if it still runs.
 */
public final class ChildProcess implements AutoCloseable {
  private final Process process;
  private final Path stderr;
  private final List<String> lines = new CopyOnWriteArrayList<>();
  private final Writer stdin;
  private final Thread reader;

  private ChildProcess(Process process, Path stderr) {
    this.process = process;
    this.stderr = stderr;
    this.stdin = process.outputWriter(StandardCharsets.UTF_8);
    this.reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                  lines.add(line);
                }
              } catch (IOException e) {
                lines.add("<stdout closed: " + e + ">");
              }
            },
            "child-stdout-" + process.pid());
    this.reader.setDaemon(true);
    this.reader.start();
  }

  /**
   * Starts {@link WorkerMain} with the test JVM's java binary and class path.
   *
   * @param mode {@code crash} or {@code stall}, see {@link WorkerMain}
   */
  public static ChildProcess start(
      String jdbcUrl, String schema, String nodeId, String mode, Duration lease, int concurrency)
      throws IOException {
    String java =
        ProcessHandle.current()
            .info()
            .command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    List<String> cmd = new ArrayList<>();
    cmd.add(java);
    cmd.add("-Xmx256m");
    cmd.add("-Duser.timezone=" + System.getProperty("user.timezone"));
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(WorkerMain.class.getName());
    cmd.add(jdbcUrl);
    cmd.add(schema);
    cmd.add(nodeId);
    cmd.add(mode);
    cmd.add(Long.toString(lease.toMillis()));
    cmd.add(Integer.toString(concurrency));
    Path err = Files.createTempFile("baton-child-" + nodeId + "-", ".stderr");
    Process p =
        new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.to(err.toFile())).start();
    return new ChildProcess(p, err);
  }

  /** The child's process id. */
  public long pid() {
    return process.pid();
  }

  /** Whether the process still runs. */
  public boolean isAlive() {
    return process.isAlive();
  }

  /** The first stdout line starting with {@code prefix}. */
  public Optional<String> line(String prefix) {
    return lines.stream().filter(l -> l.startsWith(prefix)).findFirst();
  }

  /** Sends one command line to the child's stdin. */
  public void send(String command) throws IOException {
    stdin.write(command + "\n");
    stdin.flush();
  }

  /** Sends {@code signal} (e.g. {@code STOP}, {@code CONT}) with {@code kill}. */
  public void signal(String signal) throws IOException, InterruptedException {
    Process kill =
        new ProcessBuilder("kill", "-" + signal, Long.toString(pid())).inheritIO().start();
    if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new IllegalStateException("kill -" + signal + " " + pid() + " failed");
    }
  }

  /** SIGKILLs the child and waits until it is gone. */
  public void killHard() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      throw new IllegalStateException("child " + pid() + " survived SIGKILL for 10 s");
    }
  }

  /** Waits up to {@code timeout} for the child to exit; returns its exit code. */
  public int awaitExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException(
          "child " + pid() + " did not exit within " + timeout + "\n" + describe());
    }
    reader.join(TimeUnit.SECONDS.toMillis(5));
    return process.exitValue();
  }

  /** Stdout lines and the tail of stderr, for failure messages. */
  public String describe() {
    String err;
    try {
      err = Files.readString(stderr);
      if (err.length() > 6_000) {
        err = "..." + err.substring(err.length() - 6_000);
      }
    } catch (IOException e) {
      err = "<cannot read " + stderr + ": " + e + ">";
    }
    return "child " + pid() + " stdout:\n  " + String.join("\n  ", lines) + "\nstderr:\n" + err;
  }

  @Override
  public void close() throws Exception {
    if (process.isAlive()) {
      process.destroyForcibly(); // SIGKILL ends a SIGSTOPped process too
      process.waitFor(10, TimeUnit.SECONDS);
    }
    Files.deleteIfExists(stderr);
  }
}
