package dev.baton.testing;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.JobArgs;
import java.time.Duration;

/**
 * A Baton worker run as a child JVM by {@code ConcurrencyLimitIT}: a full cluster member
 * (maintenance on, so it may lead) working queue {@link #QUEUE}, whose handler of {@link Work}
 * sleeps for {@code work ms} (an interrupt ends it early, as a lost lease or a stop does).
 *
 * <p>Arguments: {@code <jdbc url> <schema> <node id> <concurrency> <lease ms> <leader ttl ms> <work
 * ms>}. Stdout: {@code ready <node id>} once started; on {@code stop} (or end of stdin) it stops
 * the client and exits 0. Its database sessions carry the node id as {@code application_name}. Logs
 * go to stderr.
 */
public final class LimitedWorkerMain {

  /** The queue the children work. */
  public static final String QUEUE = "limited";

  /**
   * One job of the run.
   *
   * @param n the job's number in the run
   */
  public record Work(int n) implements JobArgs {}

  private LimitedWorkerMain() {}

  public static void main(String[] argv) throws Exception {
    String url = argv[0];
    String schema = argv[1];
    String nodeId = argv[2];
    int concurrency = Integer.parseInt(argv[3]);
    Duration lease = Duration.ofMillis(Long.parseLong(argv[4]));
    Duration leaderTtl = Duration.ofMillis(Long.parseLong(argv[5]));
    long workMillis = Long.parseLong(argv[6]);

    HikariDataSource ds = ChildMains.pool(url, "child-" + nodeId, nodeId, 8);
    Baton baton =
        Baton.builder(ds)
            .config(
                BatonConfig.builder()
                    .schema(schema)
                    .nodeId(nodeId)
                    .queue(QUEUE, concurrency)
                    .lease(lease)
                    .leaderTtl(leaderTtl)
                    .pollInterval(Duration.ofMillis(200))
                    .maintenanceEnabled(true)
                    .maintenanceInterval(Duration.ofMillis(250))
                    .stopTimeout(Duration.ofSeconds(2))
                    .build())
            .handler(Work.class, (ctx, args) -> Thread.sleep(workMillis))
            .build();
    baton.start();
    ChildMains.say("ready " + nodeId);
    ChildMains.awaitStop();
    baton.stop();
    ds.close();
    System.exit(0);
  }
}
