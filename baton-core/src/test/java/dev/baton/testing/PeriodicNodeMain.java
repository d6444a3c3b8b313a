package dev.baton.testing;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.EnqueueOptions;
import dev.baton.JobArgs;
import dev.baton.JobContext;
import dev.baton.PeriodicJob;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * A Baton node run as a child JVM by the periodic-job failover test: it registers the periodic job
 * {@value #JOB_NAME} and works its queue, maintenance on, so any node of the cluster may lead and
 * enqueue its runs.
 *
 * <p>Arguments: {@code <jdbc url> <schema> <node id> <cron> <leader ttl ms> <maintenance interval
 * ms> <lease ms>}. The periodic job's options carry the metadata {@code registered_by = <node id>},
 * so each run's job row names the node that led when it was enqueued. The handler records one row
 * per execution in {@code <schema>.periodic_run} ({@link #createRunTable}), in its own autocommit
 * transaction before it returns: a run whose node dies after the record and before the completion
 * is written shows up twice, once per attempt, which the test accounts for.
 *
 * <p>Stdout carries {@code ready <node id>} once started, and {@code stopped <node id>} after a
 * graceful stop; logs go to stderr. Stdin {@code stop} (or end of input) stops the client and exits
 * 0. The process's database sessions carry the node id as {@code application_name}.
 */
public final class PeriodicNodeMain {

  /** The periodic job's name; its runs' idempotency keys are {@code baton:periodic:tick:<due>}. */
  public static final String JOB_NAME = "tick";

  /** The queue its runs go to. */
  public static final String QUEUE = "periodic";

  /** The metadata key naming the node whose registration enqueued a run (the leader then). */
  public static final String REGISTERED_BY = "registered_by";

  /** Args of each run. */
  public record Tick(String schedule) implements JobArgs {}

  private PeriodicNodeMain() {}

  /** Creates {@code <schema>.periodic_run}, one row per handler execution, as the test's admin. */
  public static void createRunTable(TestDatabase db, String schema) {
    db.execute(
        "CREATE TABLE \""
            + schema
            + "\".periodic_run (job_id bigint NOT NULL, due_at text NOT NULL, attempt int NOT"
            + " NULL, fence bigint NOT NULL, node text NOT NULL, enqueued_by text, at timestamptz"
            + " NOT NULL DEFAULT clock_timestamp())");
  }

  public static void main(String[] argv) throws Exception {
    String url = argv[0];
    String schema = argv[1];
    String nodeId = argv[2];
    String cron = argv[3];
    Duration leaderTtl = Duration.ofMillis(Long.parseLong(argv[4]));
    Duration maintenanceInterval = Duration.ofMillis(Long.parseLong(argv[5]));
    Duration lease = Duration.ofMillis(Long.parseLong(argv[6]));

    HikariDataSource ds = ChildMains.pool(url, "periodic-" + nodeId, nodeId, 8);

    Baton baton =
        Baton.builder(ds)
            .config(
                BatonConfig.builder()
                    .schema(schema)
                    .nodeId(nodeId)
                    .queue(QUEUE, 4)
                    .lease(lease)
                    .pollInterval(Duration.ofMillis(100))
                    .leaderTtl(leaderTtl)
                    .maintenanceInterval(maintenanceInterval)
                    .stopTimeout(Duration.ofSeconds(2))
                    .build())
            .periodic(
                PeriodicJob.cron(JOB_NAME, cron, new Tick(cron))
                    .withOptions(
                        EnqueueOptions.builder()
                            .queue(QUEUE)
                            .metadata(REGISTERED_BY, nodeId)
                            .build()))
            .handler(Tick.class, (ctx, args) -> recordRun(ds, schema, nodeId, ctx))
            .build();
    baton.start();
    ChildMains.say("ready " + nodeId);

    ChildMains.awaitStop();
    baton.stop();
    ChildMains.say("stopped " + nodeId);
    ds.close();
    System.exit(0);
  }

  private static void recordRun(DataSource ds, String schema, String nodeId, JobContext ctx)
      throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO \""
                    + schema
                    + "\".periodic_run (job_id, due_at, attempt, fence, node, enqueued_by)"
                    + " VALUES (?, ?, ?, ?, ?, ?)")) {
      ps.setLong(1, ctx.jobId());
      ps.setString(2, ctx.metadata().path("due_at").asText());
      ps.setInt(3, ctx.attempt());
      ps.setLong(4, ctx.fence());
      ps.setString(5, nodeId);
      ps.setString(6, ctx.metadata().path(REGISTERED_BY).asText(null));
      ps.executeUpdate();
    }
  }
}
