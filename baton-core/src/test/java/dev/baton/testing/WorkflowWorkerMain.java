package dev.baton.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.Dependency;
import dev.baton.JobArgs;
import dev.baton.JobState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * A worker run as a child JVM by {@code DiamondWorkflowSurvivesKillsIT}: a full cluster member
 * (maintenance on, so it may lead, rescue and release) whose handler of {@link DiamondStep} works a
 * few milliseconds, records the output {@code <step>-<instance>}, then writes its receiver-side
 * effect, a row of {@code effect (instance, step, ok)} in the test schema, and completes the job in
 * the same transaction ({@code ctx.completeIn}): a step's effect and its completion commit together
 * or not at all. Step {@code d} first checks that it waits for exactly steps {@code b} and {@code
 * c}, both completed with their outputs, and writes the check's result as {@code ok}; before that,
 * each attempt of {@code d} and of a {@link BatchCallback} records in {@code step_start (job_id,
 * deps_completed, deps_open)}, in a statement of its own, how many of the jobs it depends on are
 * completed, and how many not yet final, as it starts: facts read in the database, where a
 * comparison of timestamps could not order a claim against a finish (a claim's {@code now()} is
 * taken before its snapshot).
 *
 * <p>Arguments: {@code <jdbc url> <schema> <node id> <concurrency> <lease ms>}. Stdout: {@code
 * ready <node id>} once started. The test SIGKILLs it.
 */
public final class WorkflowWorkerMain {

  /** The queue the children work. */
  public static final String QUEUE = "diamonds";

  /**
   * One step of diamond {@code instance}.
   *
   * @param step a, b, c or d
   * @param instance the diamond's number
   */
  public record DiamondStep(String step, int instance) implements JobArgs {}

  /**
   * A member of a batch: works a few milliseconds, then completes, or fails (its max attempts
   * decide whether it is discarded) when {@code fail}.
   */
  public record BatchMember(int n, boolean fail) implements JobArgs {}

  /**
   * A batch's callback: writes one effect row {@code (instance = -1, step = 'callback:<completed>:
   * <discarded>:<cancelled>', ok)} and completes in the same transaction.
   */
  public record BatchCallback(String label) implements JobArgs {}

  private WorkflowWorkerMain() {}

  public static void main(String[] argv) throws Exception {
    String url = argv[0];
    String schema = argv[1];
    String nodeId = argv[2];
    int concurrency = Integer.parseInt(argv[3]);
    Duration lease = Duration.ofMillis(Long.parseLong(argv[4]));
    HikariDataSource ds = ChildMains.pool(url, "child-" + nodeId, nodeId, concurrency + 6);
    String insert =
        "INSERT INTO \"" + schema + "\".effect (instance, step, ok, node) VALUES (?, ?, ?, ?)";
    String q = "\"" + schema + "\"";
    String started =
        "INSERT INTO "
            + q
            + ".step_start (job_id, deps_completed, deps_open) SELECT ?,"
            + " count(*) FILTER (WHERE b.state = 'completed'),"
            + " count(*) FILTER (WHERE b.state NOT IN ('completed', 'discarded', 'cancelled'))"
            + " FROM "
            + q
            + ".job_dependency e JOIN "
            + q
            + ".job b ON b.id = e.depends_on WHERE e.job_id = ?";
    Baton baton =
        Baton.builder(ds)
            .config(
                BatonConfig.builder()
                    .schema(schema)
                    .nodeId(nodeId)
                    .queue(QUEUE, concurrency)
                    .lease(lease)
                    .pollInterval(Duration.ofMillis(200))
                    .maintenanceEnabled(true)
                    .maintenanceInterval(Duration.ofMillis(250))
                    .maxRescues(1000)
                    .build())
            .handler(
                DiamondStep.class,
                (ctx, s) -> {
                  boolean ok = true;
                  if (s.step().equals("d")) {
                    recordStart(ds, started, ctx.jobId());
                    List<Dependency> deps = ctx.dependencies();
                    ok =
                        deps.size() == 2
                            && deps.stream().allMatch(d -> d.state() == JobState.COMPLETED)
                            && matches(ctx.dependencyOutput("b"), "b-" + s.instance())
                            && matches(ctx.dependencyOutput("c"), "c-" + s.instance());
                  }
                  LockSupport.parkNanos(Duration.ofMillis(10 + s.instance() % 30).toNanos());
                  ctx.recordOutput(s.step() + "-" + s.instance());
                  try (Connection c = ds.getConnection()) {
                    c.setAutoCommit(false);
                    try (PreparedStatement ps = c.prepareStatement(insert)) {
                      ps.setInt(1, s.instance());
                      ps.setString(2, s.step());
                      ps.setBoolean(3, ok);
                      ps.setString(4, nodeId);
                      ps.executeUpdate();
                    }
                    ctx.completeIn(c);
                    c.commit();
                  }
                })
            .handler(
                BatchMember.class,
                (ctx, m) -> {
                  LockSupport.parkNanos(Duration.ofMillis(2 + m.n() % 5).toNanos());
                  if (m.fail()) {
                    throw new IllegalStateException("member " + m.n() + " fails");
                  }
                })
            .handler(
                BatchCallback.class,
                (ctx, cb) -> {
                  recordStart(ds, started, ctx.jobId());
                  java.util.Map<JobState, Long> counts = ctx.dependencyCounts();
                  String seen =
                      "callback:"
                          + counts.getOrDefault(JobState.COMPLETED, 0L)
                          + ":"
                          + counts.getOrDefault(JobState.DISCARDED, 0L)
                          + ":"
                          + counts.getOrDefault(JobState.CANCELLED, 0L);
                  try (Connection c = ds.getConnection()) {
                    c.setAutoCommit(false);
                    try (PreparedStatement ps = c.prepareStatement(insert)) {
                      ps.setInt(1, -1);
                      ps.setString(2, seen);
                      ps.setBoolean(3, true);
                      ps.setString(4, nodeId);
                      ps.executeUpdate();
                    }
                    ctx.completeIn(c);
                    c.commit();
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

  private static void recordStart(HikariDataSource ds, String started, long jobId)
      throws java.sql.SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(started)) {
      ps.setLong(1, jobId);
      ps.setLong(2, jobId);
      ps.executeUpdate();
    }
  }

  private static boolean matches(JsonNode output, String expected) {
    return output != null && expected.equals(output.asText());
  }
}
