package dev.baton.testing;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.JobArgs;
import java.time.Duration;

/**
 * A Baton worker run as a child JVM by {@code ConcurrencyLimitIT}: a full cluster member
 * (maintenance on, so it may lead) working queue {@link #QUEUE}, whose handler of {@link Work}
 * sleeps for {@code work ms} (an interrupt ends it early, as a lost lease or a stop does). With
 * {@code record}, the handler also records its run in {@code <schema>.limit_runs} (job id, the
 * args' customer, node, start and end by the database clock), each in a statement of its own.
 *
 * <p>Arguments: {@code <jdbc url> <schema> <node id> <concurrency> <lease ms> <leader ttl ms> <work
 * ms> [record]}. Stdout: {@code ready <node id>} once started; on {@code stop} (or end of stdin) it
 * stops the client and exits 0. Its database sessions carry the node id as {@code
 * application_name}. Logs go to stderr.
 */
public final class LimitedWorkerMain {

  /** The queue the children work. */
  public static final String QUEUE = "limited";

  /**
   * One job of the run.
   *
   * @param n the job's number in the run
   * @param customer the key of a queue limited per key; may be null
   */
  public record Work(int n, String customer) implements JobArgs {}

  private LimitedWorkerMain() {}

  public static void main(String[] argv) throws Exception {
    String url = argv[0];
    String schema = argv[1];
    String nodeId = argv[2];
    int concurrency = Integer.parseInt(argv[3]);
    Duration lease = Duration.ofMillis(Long.parseLong(argv[4]));
    Duration leaderTtl = Duration.ofMillis(Long.parseLong(argv[5]));
    long workMillis = Long.parseLong(argv[6]);
    boolean record = argv.length > 7 && argv[7].equals("record");

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
            .handler(
                Work.class,
                (ctx, args) -> {
                  if (record) {
                    run(
                        ds,
                        "INSERT INTO "
                            + schema
                            + ".limit_runs (job_id, customer, node, started_at)"
                            + " VALUES (?, ?, ?, clock_timestamp())",
                        ctx.jobId(),
                        args.customer(),
                        nodeId);
                  }
                  Thread.sleep(workMillis);
                  if (record) {
                    run(
                        ds,
                        "UPDATE "
                            + schema
                            + ".limit_runs SET ended_at = clock_timestamp()"
                            + " WHERE job_id = ? AND customer = ? AND node = ? AND ended_at IS NULL",
                        ctx.jobId(),
                        args.customer(),
                        nodeId);
                  }
                })
            .build();
    baton.start();
    ChildMains.say("ready " + nodeId);
    ChildMains.awaitStop();
    baton.stop();
    ds.close();
    System.exit(0);
  }

  private static void run(
      javax.sql.DataSource ds, String sql, long id, String customer, String node)
      throws java.sql.SQLException {
    try (java.sql.Connection c = ds.getConnection();
        java.sql.PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setLong(1, id);
      ps.setString(2, customer);
      ps.setString(3, node);
      ps.executeUpdate();
    }
  }
}
