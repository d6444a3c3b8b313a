package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.testing.ChildEffects;
import dev.baton.testing.ChildEffects.Effect;
import dev.baton.testing.ChildJob;
import dev.baton.testing.ChildProcess;
import dev.baton.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Invariants 3, 4 and 5 with real processes: a worker JVM stalls (SIGSTOP) for longer than its
 * lease while holding two jobs; another node rescues and re-runs them; when the stalled worker
 * resumes and completes them late, nothing changes and its results are counted as fenced.
 *
 * <p>Job A is completed by the new holder before the stalled worker resumes; job B is still held
 * (running) by the new holder when the stale completion arrives, so only the fence (not the state)
 * can reject it.
 */
class StalledWorkerIsFencedTest {
  private static final Duration LEASE = Duration.ofSeconds(2);
  private static final Pattern STARTED =
      Pattern.compile("started job (\\d+) fence (\\d+) attempt (\\d+)");
  private static final Pattern COUNTERS =
      Pattern.compile("counters claimed=(\\d+) completed=(\\d+) fenced=(\\d+) .*");

  @Test
  void stalledWorkersLateCompletionChangesNothingAndIsCountedAsFenced() throws Exception {
    TestDatabase db = TestDatabase.get();
    String schema = db.newMigratedSchema();
    ChildEffects.create(db, schema);
    String childNode = "stall-child-" + ProcessHandle.current().pid();
    String survivorNode = "survivor-" + ProcessHandle.current().pid();
    CountDownLatch survivorHoldsB = new CountDownLatch(1);
    CountDownLatch releaseB = new CountDownLatch(1);

    try (HikariDataSource ds = db.dataSource(8);
        ChildProcess child =
            ChildProcess.start(db.jdbcUrl(), schema, childNode, "stall", LEASE, 2);
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
                      ChildEffects.record(
                          ds,
                          schema,
                          new Effect(
                              ctx.jobId(), ctx.attempt(), ctx.fence(), survivorNode, "started"));
                      if (args.label().equals("hold")) {
                        survivorHoldsB.countDown();
                        releaseB.await(30, TimeUnit.SECONDS);
                      }
                    })
                .build()) {
      EnqueueOptions onChildQueue = EnqueueOptions.builder().queue(ChildJob.QUEUE).build();
      long a = survivor.enqueue(new ChildJob("complete"), onChildQueue).job().id();
      long b = survivor.enqueue(new ChildJob("hold"), onChildQueue).job().id();

      await("child starts both jobs")
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  child.line("started job " + a + " ").isPresent()
                      && child.line("started job " + b + " ").isPresent());
      long staleFenceA = fenceOf(child, a);
      long staleFenceB = fenceOf(child, b);

      child.signal("STOP");
      // Once none of its sessions is active, nothing the child sent before the stop is still being
      // executed; the leases read now are at most the final ones.
      await("stopped child's sessions are idle")
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  db.queryLong(
                          "SELECT count(*) FROM pg_stat_activity WHERE application_name = '"
                              + childNode
                              + "' AND state <> 'idle'")
                      == 0);
      Instant staleLeaseA = survivor.job(a).orElseThrow().leaseExpiresAt();
      Instant staleLeaseB = survivor.job(b).orElseThrow().leaseExpiresAt();
      assertThat(survivor.job(a).orElseThrow().state()).isEqualTo(JobState.RUNNING);
      assertThat(survivor.job(b).orElseThrow().state()).isEqualTo(JobState.RUNNING);

      survivor.start();
      await("survivor rescues both, completes A and holds B")
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  survivor.job(a).orElseThrow().state() == JobState.COMPLETED
                      && survivorHoldsB.getCount() == 0);
      assertThat(child.isAlive()).isTrue();

      Job doneA = survivor.job(a).orElseThrow();
      Job heldB = survivor.job(b).orElseThrow();
      assertRerunAfterLease(doneA, staleFenceA, staleLeaseA, childNode, survivorNode);
      assertRerunAfterLease(heldB, staleFenceB, staleLeaseB, childNode, survivorNode);
      assertThat(heldB.state()).isEqualTo(JobState.RUNNING);

      // The stalled worker resumes and completes both jobs with its old fences.
      child.send("release");
      child.signal("CONT");
      await("child's late completions return")
          .atMost(Duration.ofSeconds(15))
          .until(
              () ->
                  child.line("late completion of job " + a + " ").isPresent()
                      && child.line("late completion of job " + b + " ").isPresent());
      child.send("stop");
      assertThat(child.awaitExit(Duration.ofSeconds(30))).as(child.describe()).isZero();

      assertThat(child.line("late completion of job " + a + " ").orElseThrow())
          .as(child.describe())
          .contains("fence " + staleFenceA + " rejected");
      assertThat(child.line("late completion of job " + b + " ").orElseThrow())
          .as(child.describe())
          .contains("fence " + staleFenceB + " rejected");
      Matcher counters = COUNTERS.matcher(child.line("counters ").orElseThrow());
      assertThat(counters.matches()).as(child.describe()).isTrue();
      assertThat(Long.parseLong(counters.group(1))).as("child claimed").isEqualTo(2);
      assertThat(Long.parseLong(counters.group(2))).as("child completed").isZero();
      assertThat(Long.parseLong(counters.group(3))).as("child fenced").isEqualTo(2);

      // A: the completed row is exactly as the new holder left it.
      assertThat(survivor.job(a).orElseThrow()).isEqualTo(doneA);
      // B: still running under the new holder's fence, which alone rejected the stale writes.
      Job stillHeldB = survivor.job(b).orElseThrow();
      assertThat(stillHeldB.state()).isEqualTo(JobState.RUNNING);
      assertThat(stillHeldB.fence()).isEqualTo(heldB.fence());
      assertThat(stillHeldB.attempt()).isEqualTo(1);
      assertThat(stillHeldB.attemptedBy()).isEqualTo(survivorNode);
      assertThat(stillHeldB.errors()).isEqualTo(heldB.errors());
      assertThat(stillHeldB.metadata()).isEqualTo(heldB.metadata());
      assertThat(stillHeldB.finalizedAt()).isNull();

      releaseB.countDown();
      await("survivor completes B")
          .atMost(Duration.ofSeconds(10))
          .until(() -> survivor.job(b).orElseThrow().state() == JobState.COMPLETED);
      Job doneB = survivor.job(b).orElseThrow();
      assertThat(doneB.fence()).isEqualTo(heldB.fence());
      assertThat(doneB.attempt()).isEqualTo(1);
      assertThat(doneB.errors()).isEqualTo(heldB.errors());

      // Effects: each holder's first effect; the stale holder's late effect rolled back with its
      // rejected completion.
      assertThat(ChildEffects.of(ds, schema, a))
          .containsExactly(
              new Effect(a, 1, staleFenceA, childNode, "started"),
              new Effect(a, 1, doneA.fence(), survivorNode, "started"));
      assertThat(ChildEffects.of(ds, schema, b))
          .containsExactly(
              new Effect(b, 1, staleFenceB, childNode, "started"),
              new Effect(b, 1, heldB.fence(), survivorNode, "started"));
    }
  }

  private static long fenceOf(ChildProcess child, long jobId) {
    Matcher m = STARTED.matcher(child.line("started job " + jobId + " ").orElseThrow());
    assertThat(m.matches()).isTrue();
    return Long.parseLong(m.group(2));
  }

  private static void assertRerunAfterLease(
      Job job, long staleFence, Instant staleLease, String childNode, String survivorNode) {
    assertThat(job.attempt())
        .as("attempt of %s (the rescue gave the first back)", job)
        .isEqualTo(1);
    assertThat(job.fence()).as("fence of %s", job).isGreaterThan(staleFence);
    assertThat(job.attemptedBy()).isEqualTo(survivorNode);
    assertThat(job.attemptedAt()).as("re-run vs stalled lease of %s", job).isAfter(staleLease);
    assertThat(job.errors()).hasSize(1);
    assertThat(job.errors().get(0).error()).isEqualTo("lease_expired");
    assertThat(job.errors().get(0).message())
        .startsWith("lease expired on node " + childNode + " ");
    assertThat(job.metadata().path("rescue_count").asInt()).isEqualTo(1);
  }
}
