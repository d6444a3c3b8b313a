package dev.baton.testing;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.Counters;
import dev.baton.JobContext;
import dev.baton.LostBatonException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A Baton worker run as a child JVM by multi-process tests ({@link ChildProcess}).
 *
 * <p>Arguments: {@code <jdbc url> <schema> <node id> <mode> <lease ms> <concurrency>}. It works
 * queue {@link ChildJob#QUEUE} with a handler for {@link ChildJob} that records a side effect
 * ({@link ChildEffects}, what = {@code started}), prints {@code started job <id> fence <f> attempt
 * <a>} and then, by mode:
 *
 * <ul>
 *   <li>{@code crash}: blocks until interrupted (the test SIGKILLs the process). The client is
 *       poll-only, as behind a transaction pooler: it holds no session lock, so its crash is seen
 *       only by the leases running out;
 *   <li>{@code kill}: the same with a default client, whose session lock lets the leader tell at
 *       once that the killed process is gone;
 *   <li>{@code hold}: returns at once for a job labelled {@code quick}, after 50 ms for one
 *       labelled {@code slow}; any other job blocks until its handler is interrupted, then prints
 *       {@code interrupted job <id> fence <f> at <epoch ms>} and returns;
 *   <li>{@code stall}: waits, ignoring interrupts, until the test writes {@code release} on stdin,
 *       then tries a late completion: in one transaction it records a second effect ({@code late})
 *       and completes the job with {@link JobContext#completeIn}, printing {@code late completion
 *       of job <id> fence <f> rejected} (rolled back) or {@code ... ACCEPTED} (committed); then it
 *       returns normally, so the executor also reports a plain completion with its old fence.
 * </ul>
 *
 * <p>Stdin commands: {@code release}; {@code stop} (or end of input) stops the client gracefully
 * and prints {@code counters claimed=<n> completed=<n> fenced=<n> leases_lost=<n>}, then exits 0.
 * The process's database sessions carry the node id as {@code application_name}. Maintenance is
 * off: rescuing is the test's job. Logs go to stderr; stdout carries only these lines.
 */
public final class WorkerMain {

  private WorkerMain() {}

  public static void main(String[] argv) throws Exception {
    String url = argv[0];
    String schema = argv[1];
    String nodeId = argv[2];
    String mode = argv[3];
    Duration lease = Duration.ofMillis(Long.parseLong(argv[4]));
    int concurrency = Integer.parseInt(argv[5]);
    if (!List.of("crash", "kill", "stall", "hold").contains(mode)) {
      throw new IllegalArgumentException("mode must be crash, kill, stall or hold, got " + mode);
    }

    HikariDataSource ds = ChildMains.pool(url, "child-" + nodeId, nodeId, 6);
    CountDownLatch release = new CountDownLatch(1);

    Baton baton =
        Baton.builder(ds)
            .config(
                BatonConfig.builder()
                    .schema(schema)
                    .nodeId(nodeId)
                    .queue(ChildJob.QUEUE, concurrency)
                    .lease(lease)
                    .pollInterval(Duration.ofMillis(200))
                    .maintenanceEnabled(false)
                    .pollOnly(mode.equals("crash"))
                    .stopTimeout(Duration.ofSeconds(2))
                    .build())
            .handler(
                ChildJob.class,
                (ctx, args) -> {
                  ChildEffects.record(
                      ds,
                      schema,
                      new ChildEffects.Effect(
                          ctx.jobId(), ctx.attempt(), ctx.fence(), nodeId, "started"));
                  ChildMains.say(
                      "started job "
                          + ctx.jobId()
                          + " fence "
                          + ctx.fence()
                          + " attempt "
                          + ctx.attempt());
                  if (mode.equals("crash") || mode.equals("kill")) {
                    new CountDownLatch(1).await();
                    return;
                  }
                  if (mode.equals("hold")) {
                    if (args.label().equals("slow")) {
                      Thread.sleep(50);
                    } else if (!args.label().equals("quick")) {
                      try {
                        new CountDownLatch(1).await();
                      } catch (InterruptedException e) {
                        ChildMains.say(
                            "interrupted job "
                                + ctx.jobId()
                                + " fence "
                                + ctx.fence()
                                + " at "
                                + System.currentTimeMillis());
                      }
                    }
                    return;
                  }
                  boolean interrupted = awaitUninterruptibly(release);
                  // After SIGCONT the heartbeater finds the job lost and interrupts this thread
                  // once. On a virtual thread (Java 21+) an interrupt closes a socket in use, so
                  // wait for it (bounded) and clear it before the late completion's I/O; the
                  // completion then reaches the database with the stale fence.
                  long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                  while (!ctx.isCancelled() && System.nanoTime() < until) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
                  }
                  interrupted |= Thread.interrupted();
                  lateCompletion(url, schema, nodeId, ctx, interrupted);
                })
            .build();
    baton.start();
    ChildMains.say("ready " + nodeId);

    ChildMains.awaitStop(
        line -> {
          if (line.equals("release")) {
            release.countDown();
          }
        });
    release.countDown();
    baton.stop();
    Counters c = ChildMains.awaitSettled(baton);
    ChildMains.say(
        "counters claimed="
            + c.claimed()
            + " completed="
            + c.completed()
            + " fenced="
            + c.fenced()
            + " leases_lost="
            + c.leasesLost()
            + " running="
            + c.running()
            + " "
            + c);
    ds.close();
    System.exit(0);
  }

  /** Waits for the latch, ignoring interrupts; returns whether any came. */
  private static boolean awaitUninterruptibly(CountDownLatch latch) {
    boolean interrupted = false;
    while (true) {
      try {
        latch.await();
        return interrupted;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
  }

  /**
   * The stale holder's transactional completion: a side effect and the fenced completion in one
   * transaction, on a connection of its own (not the pool, whose borrow an interrupt would abort).
   */
  private static void lateCompletion(
      String url, String schema, String nodeId, JobContext ctx, boolean interrupted)
      throws Exception {
    Properties props = new Properties();
    props.setProperty("ApplicationName", nodeId);
    try (Connection c = DriverManager.getConnection(url, props)) {
      c.setAutoCommit(false);
      ChildEffects.record(
          c,
          schema,
          new ChildEffects.Effect(ctx.jobId(), ctx.attempt(), ctx.fence(), nodeId, "late"));
      String outcome;
      try {
        ctx.completeIn(c);
        c.commit();
        outcome = "ACCEPTED";
      } catch (LostBatonException e) {
        c.rollback();
        outcome = "rejected";
      }
      ChildMains.say(
          "late completion of job "
              + ctx.jobId()
              + " fence "
              + ctx.fence()
              + " "
              + outcome
              + " (handler interrupted while waiting: "
              + interrupted
              + ")");
    }
  }
}
