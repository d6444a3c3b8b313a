package dev.baton.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.Counters;
import dev.baton.JobArgs;
import dev.baton.RetryPolicy;
import dev.baton.inbox.Inbox;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;

/**
 * A Baton worker run as a child JVM by {@code ServerLossIT}: a full cluster member (maintenance on,
 * so it may lead) whose handler applies each job's effect at most once through an {@link Inbox} in
 * the same database: in one transaction it records the delivery (idempotency key, fence) and, only
 * on {@link Inbox.Outcome#APPLY}, inserts one row into {@code <schema>.effect}. A job whose
 * completion was lost (the server died after the effect committed) runs again, and its second
 * delivery changes nothing.
 *
 * <p>Arguments: {@code <jdbc url> <schema> <node id> <concurrency> <lease ms>}. It works queue
 * {@link #QUEUE}; its pool gives up on a connection after 5 s, so that during an outage the
 * client's services fail fast and retry instead of hanging.
 *
 * <p>Stdout: {@code ready <node id>} once started; on {@code stop} (or end of stdin) it stops the
 * client gracefully, prints {@code counters node=<id> claimed=<n> completed=<n> retried=<n>
 * rescued=<n>} and exits 0. Logs go to stderr.
 */
public final class InboxWorkerMain {

  /** The queue the children work. */
  public static final String QUEUE = "loss";

  /**
   * One effect to apply once; its idempotency key is the job's.
   *
   * @param n the job's number in the run
   */
  public record Effect(int n) implements JobArgs {}

  private InboxWorkerMain() {}

  public static void main(String[] argv) throws Exception {
    String url = argv[0];
    String schema = argv[1];
    String nodeId = argv[2];
    int concurrency = Integer.parseInt(argv[3]);
    Duration lease = Duration.ofMillis(Long.parseLong(argv[4]));

    HikariConfig cfg = ChildMains.poolConfig(url, "child-" + nodeId, nodeId, concurrency + 6);
    cfg.setConnectionTimeout(5_000);
    HikariDataSource ds = new HikariDataSource(cfg);
    Inbox inbox = new Inbox(schema);
    String insertEffect =
        "INSERT INTO " + schema + ".effect (idempotency_key, node, fence) VALUES (?, ?, ?)";

    Baton baton =
        Baton.builder(ds)
            .config(
                BatonConfig.builder()
                    .schema(schema)
                    .nodeId(nodeId)
                    .queue(QUEUE, concurrency)
                    .lease(lease)
                    .leaderTtl(Duration.ofSeconds(2))
                    .pollInterval(Duration.ofMillis(250))
                    .maintenanceEnabled(true)
                    .maintenanceInterval(Duration.ofMillis(250))
                    // Attempts that failed while the server was away are tried again soon.
                    .retryPolicy(
                        RetryPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1)))
                    .stopTimeout(Duration.ofSeconds(5))
                    .build())
            .handler(
                Effect.class,
                (ctx, args) -> {
                  try (Connection c = ds.getConnection()) {
                    c.setAutoCommit(false);
                    if (inbox.apply(c, ctx.idempotencyKey(), ctx.fence()) == Inbox.Outcome.APPLY) {
                      try (PreparedStatement ps = c.prepareStatement(insertEffect)) {
                        ps.setString(1, ctx.idempotencyKey());
                        ps.setString(2, nodeId);
                        ps.setLong(3, ctx.fence());
                        ps.executeUpdate();
                      }
                    }
                    c.commit();
                  }
                })
            .build();
    baton.start();
    ChildMains.say("ready " + nodeId);

    ChildMains.awaitStop();
    baton.stop();
    Counters c = ChildMains.awaitSettled(baton);
    ChildMains.say(
        "counters node="
            + nodeId
            + " claimed="
            + c.claimed()
            + " completed="
            + c.completed()
            + " retried="
            + c.retried()
            + " rescued="
            + c.rescued());
    ds.close();
    System.exit(0);
  }
}
