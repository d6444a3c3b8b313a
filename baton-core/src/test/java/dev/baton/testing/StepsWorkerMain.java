package dev.baton.testing;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.JobArgs;
import dev.baton.JobHandler;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * A worker run as a child JVM by {@code DurableStepsSurviveAKillIT}: its handler of {@link
 * ThreeSteps} runs three durable steps, each with a side effect written to the table {@code
 * step_effect (job_id, step)} of the test schema: step "one" with {@code ctx.step} (the effect in
 * its own transaction, the record after it), steps "two" and "three" with {@code ctx.stepIn} (the
 * effect and the record in one transaction).
 *
 * <p>Arguments: {@code <jdbc url> <schema> <node id> <lease ms>}. After step two commits, the child
 * prints {@code step two committed job <id>} and parks forever, for the test to SIGKILL it. Stdout:
 * {@code ready <node id>} once started.
 */
public final class StepsWorkerMain {

  /** The queue the child works. */
  public static final String QUEUE = "steps";

  /** A job of three durable steps. */
  public record ThreeSteps(int n) implements JobArgs {}

  private StepsWorkerMain() {}

  /**
   * The handler of {@link ThreeSteps}: the effects go to {@code ds}; {@code ran} is told the name
   * of each step whose body runs; {@code afterTwo} runs after step two committed.
   */
  public static JobHandler<ThreeSteps> handler(
      DataSource ds, String schema, Consumer<String> ran, Consumer<Long> afterTwo) {
    String insert = "INSERT INTO \"" + schema + "\".step_effect (job_id, step) VALUES (?, ?)";
    return (ctx, args) -> {
      ctx.step(
          "one",
          Integer.class,
          () -> {
            ran.accept("one");
            try (Connection c = ds.getConnection()) {
              effect(c, insert, ctx.jobId(), "one");
            }
            return 1;
          });
      try (Connection c = ds.getConnection()) {
        c.setAutoCommit(false);
        ctx.stepIn(
            c,
            "two",
            Integer.class,
            () -> {
              ran.accept("two");
              effect(c, insert, ctx.jobId(), "two");
              return 2;
            });
        c.commit();
      }
      afterTwo.accept(ctx.jobId());
      try (Connection c = ds.getConnection()) {
        c.setAutoCommit(false);
        ctx.stepIn(
            c,
            "three",
            Integer.class,
            () -> {
              ran.accept("three");
              effect(c, insert, ctx.jobId(), "three");
              return 3;
            });
        c.commit();
      }
    };
  }

  private static void effect(Connection c, String insert, long jobId, String step)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(insert)) {
      ps.setLong(1, jobId);
      ps.setString(2, step);
      ps.executeUpdate();
    }
  }

  public static void main(String[] argv) throws Exception {
    String url = argv[0];
    String schema = argv[1];
    String nodeId = argv[2];
    Duration lease = Duration.ofMillis(Long.parseLong(argv[3]));
    HikariDataSource ds = ChildMains.pool(url, "child-" + nodeId, nodeId, 6);
    Baton baton =
        Baton.builder(ds)
            .config(
                BatonConfig.builder()
                    .schema(schema)
                    .nodeId(nodeId)
                    .queue(QUEUE, 1)
                    .lease(lease)
                    .maintenanceEnabled(false)
                    .build())
            .handler(
                ThreeSteps.class,
                handler(
                    ds,
                    schema,
                    step -> ChildMains.say("running step " + step),
                    id -> {
                      ChildMains.say("step two committed job " + id);
                      while (true) {
                        LockSupport.park(); // until SIGKILL
                      }
                    }))
            .build();
    baton.start();
    ChildMains.say("ready " + nodeId);
    ChildMains.awaitStop();
    baton.stop();
    ds.close();
    System.exit(0);
  }
}
