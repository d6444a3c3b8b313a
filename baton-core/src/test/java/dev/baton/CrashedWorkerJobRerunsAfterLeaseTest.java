package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.testing.ChildEffects;
import dev.baton.testing.ChildJob;
import dev.baton.testing.ChildProcess;
import dev.baton.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Invariant 5 with a real crash: a worker JVM that is SIGKILLed while it runs a job, and that holds
 * no session lock (poll-only, as behind a transaction pooler) by which it could be proven gone,
 * leaves the job {@code running} until its lease runs out; then another node's rescuer returns it
 * and it runs again, never sooner. {@code CrashRescueIT} has the node that can be proven gone.
 */
class CrashedWorkerJobRerunsAfterLeaseTest {
  private static final Duration LEASE = Duration.ofSeconds(3);
  private static final Pattern STARTED =
      Pattern.compile("started job (\\d+) fence (\\d+) attempt (\\d+)");

  @Test
  void crashedWorkersJobIsRerunAfterItsLeaseExpiresAndNoSooner() throws Exception {
    TestDatabase db = TestDatabase.get();
    String schema = db.newMigratedSchema();
    ChildEffects.create(db, schema);
    String childNode = "crash-child-" + ProcessHandle.current().pid();
    String survivorNode = "survivor-" + ProcessHandle.current().pid();
    List<Instant> survivorStarts = new CopyOnWriteArrayList<>();

    try (HikariDataSource ds = db.dataSource(8);
        ChildProcess child =
            ChildProcess.start(db.jdbcUrl(), schema, childNode, "crash", LEASE, 1);
        Baton survivor =
            Baton.builder(ds)
                .config(
                    BatonConfig.builder()
                        .schema(schema)
                        .nodeId(survivorNode)
                        .queue(ChildJob.QUEUE, 2)
                        .lease(LEASE)
                        .maintenanceInterval(Duration.ofMillis(50))
                        .stopTimeout(Duration.ofSeconds(1))
                        .build())
                .handler(
                    ChildJob.class,
                    (ctx, args) -> {
                      survivorStarts.add(Instant.now());
                      ChildEffects.record(
                          ds,
                          schema,
                          new ChildEffects.Effect(
                              ctx.jobId(), ctx.attempt(), ctx.fence(), survivorNode, "started"));
                    })
                .build()) {
      long id =
          survivor
              .enqueue(
                  new ChildJob("crash"), EnqueueOptions.builder().queue(ChildJob.QUEUE).build())
              .job()
              .id();

      await("child starts job " + id)
          .atMost(Duration.ofSeconds(30))
          .until(() -> child.line("started job " + id + " ").isPresent());
      Matcher m = STARTED.matcher(child.line("started job " + id + " ").orElseThrow());
      assertThat(m.matches()).isTrue();
      long crashedFence = Long.parseLong(m.group(2));

      // The survivor works the same queue, rescuer on, while the child still holds the job.
      survivor.start();
      child.killHard();
      // A heartbeat the child sent just before dying may still be executed by its backend; once
      // every session of the child is gone, the row's lease is final.
      await("sessions of the killed child end")
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  db.queryLong(
                          "SELECT count(*) FROM pg_stat_activity WHERE application_name = '"
                              + childNode
                              + "'")
                      == 0);

      Job crashed = survivor.job(id).orElseThrow();
      assertThat(crashed.state()).as("right after the crash").isEqualTo(JobState.RUNNING);
      assertThat(crashed.attempt()).isEqualTo(1);
      assertThat(crashed.fence()).isEqualTo(crashedFence);
      assertThat(crashed.attemptedBy()).isEqualTo(childNode);
      Instant leaseEnd = crashed.leaseExpiresAt();
      assertThat(leaseEnd).isNotNull();

      // While the lease lasts, the job stays with the dead holder although the survivor's rescuer
      // and producer are running.
      Duration window = Duration.between(Instant.now(), leaseEnd).minusMillis(300);
      if (window.compareTo(Duration.ofMillis(200)) > 0) {
        await("job stays running under the crashed fence until its lease ends")
            .during(window)
            .atMost(window.plusSeconds(2))
            .until(
                () -> {
                  Job j = survivor.job(id).orElseThrow();
                  return j.state() == JobState.RUNNING && j.fence() == crashedFence;
                });
      }

      await("job completes on the survivor")
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () -> {
                Job j = survivor.job(id).orElseThrow();
                assertThat(j.state())
                    .as(
                        () ->
                            j
                                + "\nsurvivor "
                                + survivor.counters()
                                + ", handler starts "
                                + survivorStarts
                                + "\n"
                                + batonThreads())
                    .isEqualTo(JobState.COMPLETED);
              });

      Job done = survivor.job(id).orElseThrow();
      assertThat(survivorStarts).as("survivor handler runs").hasSize(1);
      assertThat(survivorStarts.get(0))
          .as("survivor's handler start vs the crashed attempt's lease end")
          .isAfterOrEqualTo(leaseEnd);
      assertThat(done.attemptedAt())
          .as("second claim (database clock) vs the crashed attempt's lease end")
          .isAfter(leaseEnd);
      assertThat(done.attempt()).as("the rescue gave the attempt back").isEqualTo(1);
      assertThat(done.fence()).isGreaterThan(crashedFence);
      assertThat(done.attemptedBy()).isEqualTo(survivorNode);
      assertThat(done.errors()).hasSize(1);
      JobError rescue = done.errors().get(0);
      assertThat(rescue.attempt()).isEqualTo(1);
      assertThat(rescue.error()).isEqualTo("lease_expired");
      assertThat(rescue.message()).startsWith("lease expired on node " + childNode + " ");
      assertThat(done.metadata().path("rescue_count").asInt()).isEqualTo(1);
      assertThat(survivor.counters().rescued()).isEqualTo(1);

      assertThat(ChildEffects.of(ds, schema, id))
          .as(child.describe())
          .containsExactly(
              new ChildEffects.Effect(id, 1, crashedFence, childNode, "started"),
              new ChildEffects.Effect(id, 1, done.fence(), survivorNode, "started"));
    }
  }

  /** Stacks of this JVM's Baton threads, for a failure message. */
  private static String batonThreads() {
    StringBuilder sb = new StringBuilder();
    Thread.getAllStackTraces()
        .forEach(
            (t, stack) -> {
              if (t.getName().startsWith("baton-")) {
                sb.append(t.getName()).append(' ').append(t.getState()).append('\n');
                for (StackTraceElement e : stack) {
                  sb.append("    at ").append(e).append('\n');
                }
              }
            });
    return sb.toString();
  }
}
