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
 * A main class (such as {@link WorkerMain}, {@link ClusterWorkerMain} or {@link PeriodicNodeMain})
 * running in a child JVM: its stdout lines, its stdin, its stderr file, and signals to it. Closing
 * it kills the process if it still runs.
 */
public final class ChildProcess implements AutoCloseable {
  private static final int STDERR_TAIL = 8_000;

  private final String name;
  private final Process process;
  private final Path stderr;
  private final List<String> lines = new CopyOnWriteArrayList<>();
  private final Writer stdin;
  private final Thread reader;

  private ChildProcess(String name, Process process, Path stderr) {
    this.name = name;
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
            "child-stdout-" + name);
    this.reader.setDaemon(true);
    this.reader.start();
  }

  /**
   * Starts {@code main} with the test JVM's java binary and class path: {@code java -Xmx256m
   * <extraJvmFlags> -Duser.timezone=<the test JVM's> -cp <class path> <main> <args>}, its stderr
   * going to a temporary file.
   *
   * @param name the child's name in messages (its node id)
   */
  public static ChildProcess start(
      String name, Class<?> main, List<String> extraJvmFlags, String... args) throws IOException {
    String java =
        ProcessHandle.current()
            .info()
            .command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    List<String> cmd = new ArrayList<>();
    cmd.add(java);
    cmd.add("-Xmx256m");
    cmd.addAll(extraJvmFlags);
    cmd.add("-Duser.timezone=" + System.getProperty("user.timezone"));
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(main.getName());
    cmd.addAll(List.of(args));
    Path err = Files.createTempFile("baton-child-" + name + "-", ".stderr");
    Process p =
        new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.to(err.toFile())).start();
    return new ChildProcess(name, p, err);
  }

  /**
   * Starts {@link WorkerMain}.
   *
   * @param mode {@code crash} or {@code stall}, see {@link WorkerMain}
   */
  public static ChildProcess start(
      String jdbcUrl, String schema, String nodeId, String mode, Duration lease, int concurrency)
      throws IOException {
    return start(
        nodeId,
        WorkerMain.class,
        List.of(),
        jdbcUrl,
        schema,
        nodeId,
        mode,
        Long.toString(lease.toMillis()),
        Integer.toString(concurrency));
  }

  /** The child's name, as given to {@link #start(String, Class, List, String...)}. */
  public String name() {
    return name;
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

  /** The stdout lines read so far. */
  public List<String> lines() {
    return List.copyOf(lines);
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
      throw new IllegalStateException("child " + name + " survived SIGKILL for 10 s");
    }
  }

  /** Waits up to {@code timeout} for the child to exit; returns its exit code. */
  public int awaitExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException(
          "child " + name + " did not exit within " + timeout + "\n" + describe());
    }
    reader.join(TimeUnit.SECONDS.toMillis(5));
    return process.exitValue();
  }

  /** What the child wrote to stderr so far (its log). */
  public String stderr() throws IOException {
    return Files.readString(stderr);
  }

  /** Name, pid, whether it runs, stdout lines and the tail of stderr, for failure messages. */
  public String describe() {
    String err;
    try {
      err = Files.readString(stderr);
      if (err.length() > STDERR_TAIL) {
        err = "..." + err.substring(err.length() - STDERR_TAIL);
      }
    } catch (IOException e) {
      err = "<cannot read " + stderr + ": " + e + ">";
    }
    return "child "
        + name
        + " (pid "
        + pid()
        + (process.isAlive() ? ", alive" : ", exited")
        + ") stdout:\n  "
        + String.join("\n  ", lines)
        + "\nstderr ("
        + stderr
        + "):\n"
        + err;
  }

  /** Kills the child if it still runs, and deletes its stderr file. */
  @Override
  public void close() throws Exception {
    close(true);
  }

  /**
   * Kills the child if it still runs; deletes its stderr file if {@code deleteStderr}, else keeps
   * it and prints where (for a failed test).
   */
  public void close(boolean deleteStderr) throws Exception {
    if (process.isAlive()) {
      process.destroyForcibly(); // SIGKILL ends a SIGSTOPped process too
      process.waitFor(10, TimeUnit.SECONDS);
    }
    if (deleteStderr) {
      Files.deleteIfExists(stderr);
    } else {
      System.out.println("stderr of child " + name + " kept in " + stderr);
    }
  }
}
