package dev.baton.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.cli.bench.BenchJobs;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * One node of {@link FleetBench}, run as a JVM of its own: a Baton client with a pool of its own
 * working queues {@code q0..q<Q-1>} with no-op handlers.
 *
 * <p>Arguments: {@code <jdbc url> <schema> <node id> <queues> <concurrency per queue> <pool size>}.
 * Prints {@code ready} once started; stops on {@code stop} (or the end of stdin), prints {@code
 * completed <n>} and exits 0. Logs go to stderr.
 */
public final class FleetNode {
  private FleetNode() {}

  public static void main(String[] argv) throws Exception {
    String url = argv[0];
    String schema = argv[1];
    String nodeId = argv[2];
    int queues = Integer.parseInt(argv[3]);
    int concurrency = Integer.parseInt(argv[4]);
    int poolSize = Integer.parseInt(argv[5]);
    HikariConfig cfg = new HikariConfig();
    cfg.setJdbcUrl(url);
    cfg.setPoolName(nodeId);
    cfg.setMaximumPoolSize(poolSize);
    cfg.setMinimumIdle(1);
    cfg.addDataSourceProperty("ApplicationName", nodeId);
    try (HikariDataSource ds = new HikariDataSource(cfg)) {
      BatonConfig.Builder b = BatonConfig.builder().schema(schema).nodeId(nodeId);
      for (int q = 0; q < queues; q++) {
        b.queue("q" + q, concurrency);
      }
      Baton baton =
          Baton.builder(ds).config(b.build()).handler(BenchJobs.Noop.class, (ctx, a) -> {}).build();
      baton.start();
      System.out.println("ready " + nodeId);
      System.out.flush();
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      String line;
      while ((line = in.readLine()) != null && !line.equals("stop")) {
        // only "stop" is a command
      }
      baton.stop(Duration.ofSeconds(10));
      System.out.println("completed " + baton.counters().completed());
      System.out.flush();
    }
    System.exit(0);
  }
}
