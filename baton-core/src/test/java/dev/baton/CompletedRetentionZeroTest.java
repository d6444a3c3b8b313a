package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.internal.db.ClaimedJob;
import dev.baton.internal.db.Finish;
import dev.baton.internal.db.HolderStore;
import dev.baton.internal.db.SchemaName;
import dev.baton.testing.Fixture;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * With {@code completedRetention(Duration.ZERO)} and no archive, a completion deletes its job's row
 * in the statement that would have marked it completed. No cleaner pass is involved (these clients
 * run no maintenance at all), failed jobs are kept for their own retention, and the delete is
 * fenced and transactional like the update it replaces. Any other retention, or archiving, keeps
 * the completed row.
 */
class CompletedRetentionZeroTest {

  record Mail(int n) implements JobArgs {}

  private static final int BULK = 300; // above the COPY threshold
  private static final int SMALL_BULK = 10;
  private static final int SINGLE = 20; // claimed on enqueue while a slot is free

  /** Enqueues every way a job can be enqueued; one job (n < 0) fails for good. */
  private static int enqueueAll(Baton baton) {
    List<JobRequest> bulk = new ArrayList<>();
    for (int i = 0; i < BULK; i++) {
      bulk.add(JobRequest.of(new Mail(i)));
    }
    baton.enqueueMany(bulk);
    List<JobRequest> small = new ArrayList<>();
    for (int i = 0; i < SMALL_BULK; i++) {
      small.add(JobRequest.of(new Mail(i)));
    }
    baton.enqueueMany(small);
    for (int i = 0; i < SINGLE; i++) {
      baton.enqueue(new Mail(i));
    }
    baton.enqueue(new Mail(-1), EnqueueOptions.builder().maxAttempts(1).build());
    return BULK + SMALL_BULK + SINGLE;
  }

  private static Baton startMailer(Fixture f, BatonConfig config) {
    return f.start(
        config,
        b ->
            b.handler(
                Mail.class,
                (ctx, args) -> {
                  if (args.n() < 0) {
                    throw new IllegalStateException("mailbox does not exist");
                  }
                }));
  }

  @Test
  void completedJobsLeaveNoRowWithoutAnyCleanerPass() {
    try (Fixture f = new Fixture()) {
      Baton baton =
          startMailer(
              f,
              f.config()
                  .queue("default", 8)
                  .completedRetention(Duration.ZERO)
                  .maintenanceEnabled(false)
                  .build());
      int ok = enqueueAll(baton);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> baton.counters().completed() == ok && baton.counters().discarded() == 1);
      assertThat(f.count("SELECT count(*) FROM %s.job WHERE state = 'completed'")).isZero();
      assertThat(f.count("SELECT count(*) FROM %s.job")).as("only the failed job is kept").isOne();
      assertThat(f.count("SELECT count(*) FROM %s.job WHERE state = 'discarded'")).isOne();
      // the deleted jobs are still counted: queue_stats sees every completion and the failure
      assertThat(f.count("SELECT sum(n) FROM %s.job_completions")).isEqualTo(ok);
      assertThat(f.count("SELECT completed_5m FROM %s.queue_stats WHERE queue = 'default'"))
          .isEqualTo(ok);
      assertThat(f.count("SELECT failed_5m FROM %s.queue_stats WHERE queue = 'default'")).isOne();
      assertThat(
              f.count(
                  "SELECT count(*) FROM %s.queue_stats WHERE queue = 'default'"
                      + " AND abs(failure_share_5m - 1.0 / "
                      + (ok + 1)
                      + ") < 1e-9"))
          .isOne();
    }
  }

  @Test
  void aShortRetentionKeepsTheCompletedRowsForTheCleaner() {
    try (Fixture f = new Fixture()) {
      keepsCompletedRows(
          f,
          f.config()
              .queue("default", 8)
              .completedRetention(Duration.ofMillis(1))
              .maintenanceEnabled(false)
              .build());
    }
  }

  @Test
  void archivingKeepsTheCompletedRowsForTheCleanerToMove() {
    try (Fixture f = new Fixture()) {
      keepsCompletedRows(
          f,
          f.config()
              .queue("default", 8)
              .completedRetention(Duration.ZERO)
              .archiveFinished(true)
              .maintenanceEnabled(false)
              .build());
    }
  }

  private static void keepsCompletedRows(Fixture f, BatonConfig config) {
    Baton baton = startMailer(f, config);
    int ok = enqueueAll(baton);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> baton.counters().completed() == ok && baton.counters().discarded() == 1);
    assertThat(f.count("SELECT count(*) FROM %s.job WHERE state = 'completed'")).isEqualTo(ok);
    assertThat(f.count("SELECT count(*) FROM %s.job_completions"))
        .as("nothing counted twice")
        .isZero();
  }

  @Test
  void aCompletionInTheHandlersTransactionDeletesOnlyIfItCommits() {
    try (Fixture f = new Fixture()) {
      f.execute("CREATE TABLE %s.effect (job_id bigint, fence bigint)");
      Baton baton =
          f.start(
              f.config()
                  .queue("default", 2)
                  .completedRetention(Duration.ZERO)
                  // the scheduler makes the retry available; the cleaner stays out of it
                  .cleanInterval(Duration.ofDays(1))
                  .retryPolicy((attempt, e) -> Duration.ofMillis(10))
                  .build(),
              b ->
                  b.handler(
                      Mail.class,
                      (ctx, args) -> {
                        try (Connection c = f.dataSource().getConnection()) {
                          c.setAutoCommit(false);
                          try (PreparedStatement ps =
                              c.prepareStatement(
                                  "INSERT INTO \""
                                      + f.schema()
                                      + "\".effect (job_id, fence) VALUES (?, ?)")) {
                            ps.setLong(1, ctx.jobId());
                            ps.setLong(2, ctx.fence());
                            ps.executeUpdate();
                          }
                          ctx.completeIn(c);
                          if (ctx.attempt() == 1) {
                            c.rollback(); // the delete goes with it: the job is retried
                          } else {
                            c.commit();
                          }
                        }
                      }));
      long id = baton.enqueue(new Mail(1)).job().id();
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> f.count("SELECT count(*) FROM %s.job WHERE id = " + id) == 0);
      assertThat(f.count("SELECT count(*) FROM %s.effect")).as("one committed effect").isOne();
      await().atMost(Duration.ofSeconds(5)).until(() -> baton.counters().completed() == 1);
      assertThat(baton.counters().retried()).isOne();
      assertThat(f.count("SELECT sum(n) FROM %s.job_completions")).as("counted once").isOne();
    }
  }

  record Slow(int n) implements JobArgs {}

  @Test
  void anOpenHandlerTransactionThatCompletedItsJobHoldsUpNoOtherCompletion() throws Exception {
    try (Fixture f = new Fixture()) {
      CountDownLatch completedIn = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      Baton baton =
          f.start(
              f.config()
                  .queue("default", 4)
                  .completedRetention(Duration.ZERO)
                  .maintenanceEnabled(false)
                  .build(),
              b ->
                  b.handler(Mail.class, (ctx, args) -> {})
                      .handler(
                          Slow.class,
                          (ctx, args) -> {
                            try (Connection c = f.dataSource().getConnection()) {
                              c.setAutoCommit(false);
                              ctx.completeIn(c);
                              completedIn.countDown();
                              release.await(); // the transaction stays open meanwhile
                              c.commit();
                            }
                          }));
      baton.enqueue(new Slow(1));
      assertThat(completedIn.await(10, TimeUnit.SECONDS)).isTrue();
      try {
        for (int i = 0; i < 20; i++) {
          baton.enqueue(new Mail(i));
        }
        // every other completion of this node and queue, in the same 10 s, goes through
        await().atMost(Duration.ofSeconds(10)).until(() -> baton.counters().completed() == 20);
      } finally {
        release.countDown();
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> baton.counters().completed() == 21);
      assertThat(f.count("SELECT count(*) FROM %s.job")).isZero();
      assertThat(f.count("SELECT sum(n) FROM %s.job_completions")).isEqualTo(21);
    }
  }

  @Test
  void aBatchOfMixedFinishesDeletesTheCompletedAndWritesTheRest() throws Exception {
    try (Fixture f = new Fixture()) {
      HolderStore store =
          new HolderStore(SchemaName.of(f.schema()), HolderStore.CompletedRows.DELETED);
      for (int i = 0; i < 3; i++) {
        f.reader().enqueue(new Mail(i));
      }
      List<ClaimedJob> held =
          store.claim(
              f.dataSource(),
              new HolderStore.ClaimParams(
                  "default",
                  3,
                  "a",
                  Duration.ofMinutes(5),
                  new String[0],
                  new Long[0],
                  Duration.ofMinutes(5)));
      assertThat(held).hasSize(3);
      ClaimedJob done = held.get(0);
      ClaimedJob retried = held.get(1);
      ClaimedJob stale = held.get(2);
      Set<Long> written =
          store.finishIfHeld(
              f.dataSource(),
              List.of(
                  // a completion that is not plain takes the mixed statement
                  new Finish(done.id(), done.fence(), "completed", null, null, 0, "{\"x\":1}"),
                  new Finish(
                      retried.id(),
                      retried.fence(),
                      "retryable",
                      1000L,
                      "{\"error\":\"x\"}",
                      0,
                      null),
                  new Finish(stale.id(), stale.fence() - 1, "completed", null, null, 0, "{}")));
      assertThat(written).containsExactlyInAnyOrder(done.fence(), retried.fence());
      assertThat(f.count("SELECT count(*) FROM %s.job WHERE id = " + done.id())).isZero();
      assertThat(f.job(retried.id()).state()).isEqualTo(JobState.RETRYABLE);
      assertThat(f.job(stale.id()).state()).as("fenced off").isEqualTo(JobState.RUNNING);
      assertThat(f.count("SELECT sum(n) FROM %s.job_completions WHERE node = 'a'")).isOne();
    }
  }
}
