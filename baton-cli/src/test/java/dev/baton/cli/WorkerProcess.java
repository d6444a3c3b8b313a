package dev.baton.cli;

import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
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
 * {@code baton worker} in a child JVM: {@code java -cp <class path> dev.baton.cli.BatonCli worker
 * <args>}, as {@code java -jar baton.jar} runs it. Collects its stdout lines, sends it SIGTERM, and
 * keeps its stderr in a file for failure messages. Closing it kills the process if it still runs.
 */
final class WorkerProcess implements AutoCloseable {
  private static final int STDERR_TAIL = 8_000;

  private final Process process;
  private final Path stderr;
  private final List<String> lines = new CopyOnWriteArrayList<>();
  private final Thread reader;

  private WorkerProcess(Process process, Path stderr) {
    this.process = process;
    this.stderr = stderr;
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
            "worker-stdout-" + process.pid());
    this.reader.setDaemon(true);
    this.reader.start();
  }

  /** The test JVM's class path entries. */
  static List<String> testClassPath() {
    return List.of(System.getProperty("java.class.path").split(File.pathSeparator));
  }

  /** Starts {@code baton worker <args>} with {@code classPath}, with the test JVM's java. */
  static WorkerProcess start(List<String> classPath, List<String> args) throws IOException {
    return start(classPath, "worker", args);
  }

  /** Starts {@code baton <command> <args>} with {@code classPath}, with the test JVM's java. */
  static WorkerProcess start(List<String> classPath, String command, List<String> args)
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
    cmd.add(String.join(File.pathSeparator, classPath));
    cmd.add(BatonCli.class.getName());
    cmd.add(command);
    cmd.addAll(args);
    Path err = Files.createTempFile("baton-worker-", ".stderr");
    Process p =
        new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.to(err.toFile())).start();
    return new WorkerProcess(p, err);
  }

  /** Waits up to {@code timeout} for a stdout line starting with {@code prefix}. */
  String awaitLine(String prefix, Duration timeout) {
    await()
        .atMost(timeout)
        .pollInterval(Duration.ofMillis(50))
        .failFast("the worker exited: " + describe(), () -> !process.isAlive() && !has(prefix))
        .until(() -> has(prefix));
    return line(prefix).orElseThrow();
  }

  private boolean has(String prefix) {
    return line(prefix).isPresent();
  }

  /** The first stdout line starting with {@code prefix}. */
  Optional<String> line(String prefix) {
    return lines.stream().filter(l -> l.startsWith(prefix)).findFirst();
  }

  /** The stdout lines read so far. */
  List<String> lines() {
    return List.copyOf(lines);
  }

  /** Whether the process still runs. */
  boolean isAlive() {
    return process.isAlive();
  }

  /**
   * Sends SIGTERM, through the process handle: {@link Process#destroy()} sends it too, but also
   * closes our end of the child's stdout, losing what it prints while it stops.
   */
  void terminate() {
    if (!process.toHandle().destroy()) {
      throw new AssertionError("cannot send SIGTERM to the worker\n" + describe());
    }
  }

  /** Waits up to {@code timeout} for the process to exit, and for its stdout; its exit code. */
  int awaitExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError("the worker did not exit within " + timeout + "\n" + describe());
    }
    reader.join(TimeUnit.SECONDS.toMillis(5));
    return process.exitValue();
  }

  /** Pid, whether it runs, stdout and the tail of stderr, for failure messages. */
  String describe() {
    String err;
    try {
      err = Files.readString(stderr);
      if (err.length() > STDERR_TAIL) {
        err = "..." + err.substring(err.length() - STDERR_TAIL);
      }
    } catch (IOException e) {
      err = "<cannot read " + stderr + ": " + e + ">";
    }
    return "worker (pid "
        + process.pid()
        + (process.isAlive() ? ", alive" : ", exited " + process.exitValue())
        + ") stdout:\n  "
        + String.join("\n  ", lines)
        + "\nstderr:\n"
        + err;
  }

  /** Kills the process if it still runs, and deletes its stderr file. */
  @Override
  public void close() throws IOException {
    if (process.isAlive()) {
      process.destroyForcibly();
      try {
        process.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    Files.deleteIfExists(stderr);
  }
}
