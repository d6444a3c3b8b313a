package dev.baton.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.cli.bench.BenchJobs;
import dev.baton.cli.bench.OpenLoop;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.StringJoiner;

/**
 * W2's producer as a process of its own ({@code BATON_ENQUEUE_VIA=process}): a JVM that only
 * enqueues, as a web process next to the worker would. The working process learns of each job only
 * through LISTEN/NOTIFY (or the poll).
 *
 * <p>Started by {@link HarnessAdapter} with the harness's environment (so {@link
 * HarnessSettings#fromEnvironment()} gives it the same database and W2 settings). Protocol, one
 * line each:
 *
 * <ol>
 *   <li>it enqueues {@code W2_WARM} warm-up jobs (phase 0), then prints {@code READY <nanoTime>};
 *   <li>it waits for {@code GO} on stdin, then enqueues {@code W2_N} jobs (phase 1) at {@code
 *       W2_RATE} per second on absolute deadlines (open loop), each carrying {@link
 *       System#nanoTime()} taken just before its enqueue call;
 *   <li>it prints {@code ENQUEUE_MS <ms>,<ms>,...} (every enqueue call's duration), then {@code
 *       DONE <nanoTime of the first deadline> <nanoTime after the last call>}, and exits 0.
 * </ol>
 *
 * <p>The latency the worker computes subtracts this process's {@code nanoTime} from its own. On
 * Linux both read {@code CLOCK_MONOTONIC}, one clock for the whole machine; the adapter checks that
 * the {@code READY} stamp is close to its own clock before it trusts the figures.
 */
public final class W2ProducerProcess {
  private W2ProducerProcess() {}

  /** Runs the protocol above; exit 1 on any failure (its message on stderr). */
  public static void main(String[] args) throws Exception {
    HarnessSettings s = HarnessSettings.fromEnvironment();
    try (HikariDataSource ds = s.pool("baton-w2-producer", 2);
        BufferedReader in =
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      Baton client = Baton.builder(ds).config(s.enqueueOnlyConfig()).build();
      for (int i = 0; i < s.w2Warm(); i++) {
        client.enqueue(new BenchJobs.Ping(System.nanoTime(), 0, i));
      }
      System.out.println("READY " + System.nanoTime());
      String go = in.readLine();
      if (!"GO".equals(go)) {
        throw new IOException("expected GO on stdin, got " + go);
      }
      OpenLoop.Timing t =
          OpenLoop.run(
              s.w2N(), s.w2Rate(), (i, at) -> client.enqueue(new BenchJobs.Ping(at, 1, i)));
      StringJoiner calls = new StringJoiner(",");
      for (long c : t.callNanos()) {
        calls.add(String.format(Locale.ROOT, "%.4f", c / 1e6));
      }
      System.out.println("ENQUEUE_MS " + calls);
      System.out.println("DONE " + t.startNanos() + " " + t.endNanos());
    }
  }
}
