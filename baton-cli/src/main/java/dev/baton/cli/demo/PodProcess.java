package dev.baton.cli.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A {@link Pod} running in a child JVM of the demo: started with this JVM's java binary and class
 * path, signalled with {@code kill}, and read from its stdout lines.
 */
final class PodProcess implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String name;
  private final Process process;
  private final Path stderr;
  private final Writer stdin;
  private final CountDownLatch ready = new CountDownLatch(1);
  private volatile String metricsUrl;
  private volatile JsonNode counters = JSON.createObjectNode();
  private volatile JsonNode finalCounters;
  private volatile String fate = "running";

  private PodProcess(String name, Process process, Path stderr) {
    this.name = name;
    this.process = process;
    this.stderr = stderr;
    this.stdin = process.outputWriter(StandardCharsets.UTF_8);
    Thread reader = new Thread(this::readStdout, "demo-pod-stdout-" + name);
    reader.setDaemon(true);
    reader.start();
  }

  /** Starts a pod JVM; {@code podArgs} are {@link Pod}'s {@code --key value} pairs. */
  static PodProcess start(String name, List<String> podArgs) throws IOException {
    String java =
        ProcessHandle.current()
            .info()
            .command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    List<String> cmd = new ArrayList<>();
    cmd.add(java);
    cmd.add("-Xmx256m");
    cmd.add("-XX:+UseSerialGC");
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(Pod.class.getName());
    cmd.addAll(podArgs);
    Path err = Files.createTempFile("baton-demo-" + name + "-", ".log");
    Process p =
        new ProcessBuilder(cmd)
            .redirectError(ProcessBuilder.Redirect.appendTo(err.toFile()))
            .start();
    return new PodProcess(name, p, err);
  }

  private void readStdout() {
    try (BufferedReader r =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        if (line.startsWith("READY ")) {
          metricsUrl = line.substring(6).strip();
          ready.countDown();
        } else if (line.startsWith("COUNTERS ")) {
          counters = JSON.readTree(line.substring(9));
        } else if (line.startsWith("STOPPED ")) {
          finalCounters = JSON.readTree(line.substring(8));
          counters = finalCounters;
        }
      }
    } catch (IOException e) {
      // The pod is gone (killed): its last counters stay.
    }
  }

  /** Waits until the pod runs its client; false if it died or {@code timeout} passed. */
  boolean awaitReady(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (ready.await(100, TimeUnit.MILLISECONDS)) {
        return true;
      }
      if (!process.isAlive()) {
        return false;
      }
    }
    return false;
  }

  String name() {
    return name;
  }

  long pid() {
    return process.pid();
  }

  /** The pod's Prometheus scrape address, once ready. */
  String metricsUrl() {
    return metricsUrl;
  }

  /** Its counters as of its last report (a killed pod keeps those it reported last). */
  JsonNode counters() {
    return counters;
  }

  /** What happened to it: running, killed, stopped, or failed. */
  String fate() {
    return fate;
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** SIGKILL, and wait until it is gone. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
    fate = "killed";
  }

  /** SIGSTOP: the JVM stops where it is, holding its jobs, sockets and connections. */
  void freeze() throws IOException, InterruptedException {
    signal("STOP");
  }

  /** SIGCONT. */
  void resume() throws IOException, InterruptedException {
    signal("CONT");
  }

  private void signal(String sig) throws IOException, InterruptedException {
    Process k = new ProcessBuilder("kill", "-" + sig, Long.toString(process.pid())).start();
    if (!k.waitFor(5, TimeUnit.SECONDS) || k.exitValue() != 0) {
      throw new IOException("kill -" + sig + " " + process.pid() + " failed");
    }
  }

  /** Asks the pod to stop gracefully and waits up to {@code timeout}; true if it exited 0. */
  boolean stop(Duration timeout) throws InterruptedException {
    if (!process.isAlive()) {
      return false;
    }
    try {
      stdin.write("stop\n");
      stdin.flush();
    } catch (IOException e) {
      // Already exiting.
    }
    boolean exited = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    boolean clean = exited && process.exitValue() == 0;
    fate = clean ? "stopped" : "failed";
    return clean;
  }

  /** The last lines of its stderr, for a failure message. */
  String stderrTail() {
    try {
      String s = Files.readString(stderr);
      return s.length() > 4000 ? s.substring(s.length() - 4000) : s;
    } catch (IOException e) {
      return "(cannot read " + stderr + ": " + e + ")";
    }
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
    }
    try {
      Files.deleteIfExists(stderr);
    } catch (IOException e) {
      // A temporary file.
    }
  }
}
