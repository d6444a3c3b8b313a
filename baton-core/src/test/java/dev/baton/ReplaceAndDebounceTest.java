package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.admin.BatonAdmin;
import dev.baton.testing.Fixture;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * A second enqueue of a unique job that still waits replaces its values or pushes its run time out,
 * under concurrency, and never changes a running job.
 */
class ReplaceAndDebounceTest {
  private static final int THREADS = 20;

  record Refresh(String account, int n) implements JobArgs {}

  /** One enqueue in its own transaction, and its place in the order the job row was written. */
  record Ordered(EnqueueResult result, long order, int n) {}

  private static EnqueueOptions replacing() {
    return EnqueueOptions.builder()
        .unique(
            UniqueOptions.byFields("account")
                .replace(UniqueOptions.Replace.ARGS, UniqueOptions.Replace.PRIORITY)
                .build())
        .build();
  }

  @Test
  void concurrentReplacesLeaveOneJobWithTheLastArgs() throws Exception {
    try (Fixture f = new Fixture(THREADS + 5)) {
      f.execute("CREATE SEQUENCE %s.written_order");
      Baton baton = f.reader();
      List<Ordered> done =
          concurrently(
              n -> {
                try (Connection c = f.dataSource().getConnection()) {
                  c.setAutoCommit(false);
                  EnqueueResult r = baton.enqueue(c, new Refresh("acme", n), replacing());
                  // The job row stays locked by this transaction until it commits, so the order
                  // of this draw is the order in which the enqueues wrote the row.
                  long order;
                  try (PreparedStatement ps =
                          c.prepareStatement("SELECT nextval('" + f.schema() + ".written_order')");
                      ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    order = rs.getLong(1);
                  }
                  c.commit();
                  return new Ordered(r, order, n);
                }
              });

      assertThat(f.count("SELECT count(*) FROM %s.job")).isEqualTo(1);
      assertThat(done.stream().filter(o -> !o.result().existing())).hasSize(1);
      assertThat(done.stream().filter(o -> o.result().existing() && o.result().updated()))
          .hasSize(THREADS - 1);
      Ordered last =
          done.stream().max(java.util.Comparator.comparingLong(Ordered::order)).orElseThrow();
      Job stored = f.job(last.result().id());
      assertThat(stored.args().path("n").asInt()).isEqualTo(last.n());
      assertThat(stored.state()).isEqualTo(JobState.AVAILABLE);
    }
  }

  @Test
  void concurrentDebouncesPushTheRunTimeOutButNeverPastTheMaximumWait() throws Exception {
    try (Fixture f = new Fixture(THREADS + 5)) {
      Baton baton = f.reader();
      Duration delay = Duration.ofMinutes(10);
      Duration maxWait = Duration.ofMinutes(15);
      EnqueueOptions debounced =
          EnqueueOptions.builder()
              .unique(UniqueOptions.byKind().debounce(delay, maxWait).build())
              .build();
      EnqueueResult first = baton.enqueue(new Refresh("acme", 0), debounced);
      assertThat(first.job().state()).isEqualTo(JobState.SCHEDULED);
      long id = first.id();

      // Pushed out from now while the maximum wait is far.
      long before = f.count("SELECT (extract(epoch FROM now()) * 1000000)::bigint");
      List<EnqueueResult> pushed =
          concurrently(n -> baton.enqueue(new Refresh("acme", n), debounced));
      assertThat(f.count("SELECT count(*) FROM %s.job")).isEqualTo(1);
      assertThat(pushed).allSatisfy(r -> assertThat(r.updated()).isTrue());
      long runAt = micros(f, "scheduled_at", id);
      assertThat(runAt).isGreaterThanOrEqualTo(before + delay.toNanos() / 1000);
      assertThat(runAt).isLessThanOrEqualTo(micros(f, "created_at", id) + maxWait.toNanos() / 1000);

      // The job was first enqueued 14 minutes ago: no debounce puts it past 15.
      f.execute(
          "UPDATE %s.job SET created_at = created_at - interval '14 minutes' WHERE id = " + id);
      concurrently(n -> baton.enqueue(new Refresh("acme", n), debounced));
      assertThat(micros(f, "scheduled_at", id))
          .isEqualTo(micros(f, "created_at", id) + maxWait.toNanos() / 1000);

      // Past its maximum wait, a debounce makes it available at once.
      f.execute("UPDATE %s.job SET created_at = created_at - interval '1 hour' WHERE id = " + id);
      EnqueueResult due = baton.enqueue(new Refresh("acme", 99), debounced);
      assertThat(due.job().state()).isEqualTo(JobState.AVAILABLE);
    }
  }

  @Test
  void aRunningJobIsNeverChangedAndEveryEnqueueGetsItAsItIs() throws Exception {
    try (Fixture f = new Fixture(THREADS + 5)) {
      Baton baton = f.reader();
      long id = baton.enqueue(new Refresh("acme", 1), replacing()).id();
      f.execute(
          "UPDATE %s.job SET state = 'running', attempt = 1, fence = 7, attempted_at = now(),"
              + " lease_expires_at = now() + interval '1 hour' WHERE id = "
              + id);
      List<EnqueueResult> done =
          concurrently(n -> baton.enqueue(new Refresh("acme", 100 + n), replacing()));
      assertThat(done)
          .allSatisfy(
              r -> {
                assertThat(r.id()).isEqualTo(id);
                assertThat(r.existing()).isTrue();
                assertThat(r.updated()).isFalse();
                assertThat(r.job().state()).isEqualTo(JobState.RUNNING);
              });
      Job stored = f.job(id);
      assertThat(stored.args().path("n").asInt()).isEqualTo(1);
      assertThat(stored.fence()).isEqualTo(7);
      assertThat(f.count("SELECT count(*) FROM %s.job")).isEqualTo(1);
    }
  }

  @Test
  void aBulkReplacesInRequestOrder() {
    try (Fixture f = new Fixture()) {
      Baton baton = f.reader();
      EnqueueManyResult r =
          baton.enqueueMany(
              List.of(
                  JobRequest.of(new Refresh("acme", 1), replacing()),
                  JobRequest.of(new Refresh("beta", 1), replacing()),
                  JobRequest.of(new Refresh("acme", 2), replacing())));
      assertThat(r.existing()).containsExactly(false, false, true);
      assertThat(r.jobIds()[2]).isEqualTo(r.jobIds()[0]);
      assertThat(f.job(r.jobIds()[0]).args().path("n").asInt()).isEqualTo(2);
      assertThat(f.count("SELECT count(*) FROM %s.job")).isEqualTo(2);
    }
  }

  @Test
  void keepFirstIsTheDefault() {
    try (Fixture f = new Fixture()) {
      Baton baton = f.reader();
      EnqueueOptions keep =
          EnqueueOptions.builder().unique(UniqueOptions.byFields("account").build()).build();
      long id = baton.enqueue(new Refresh("acme", 1), keep).id();
      EnqueueResult second = baton.enqueue(new Refresh("acme", 2), keep);
      assertThat(second.existing()).isTrue();
      assertThat(second.updated()).isFalse();
      assertThat(f.job(id).args().path("n").asInt()).isEqualTo(1);
    }
  }

  @Test
  void anOperatorRetryOfAFinishedJobFailsWhileAnotherHoldsItsKey() {
    try (Fixture f = new Fixture()) {
      Baton baton = f.reader();
      EnqueueOptions keep =
          EnqueueOptions.builder().unique(UniqueOptions.byFields("account").build()).build();
      long done = baton.enqueue(new Refresh("acme", 1), keep).id();
      f.execute("UPDATE %s.job SET state = 'discarded', finalized_at = now() WHERE id = " + done);
      long waiting = baton.enqueue(new Refresh("acme", 2), keep).id();
      BatonAdmin admin = new BatonAdmin(f.dataSource(), f.schema());
      assertThatThrownBy(() -> admin.retry(done, "ops"))
          .isInstanceOf(BatonException.class)
          .hasMessageContaining(
              "cannot retry job (id=" + done + "): another job holds its unique key");
      f.execute(
          "UPDATE %s.job SET state = 'completed', finalized_at = now() WHERE id = " + waiting);
      assertThat(admin.retry(done, "ops").job().state()).isEqualTo(JobState.AVAILABLE);
    }
  }

  private interface Enqueue<T> {
    T run(int n) throws Exception;
  }

  private static <T> List<T> concurrently(Enqueue<T> enqueue) throws Exception {
    CyclicBarrier barrier = new CyclicBarrier(THREADS);
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      List<Future<T>> futures = new ArrayList<>();
      for (int i = 0; i < THREADS; i++) {
        int n = i + 1;
        Callable<T> task =
            () -> {
              barrier.await();
              return enqueue.run(n);
            };
        futures.add(pool.submit(task));
      }
      List<T> out = new ArrayList<>();
      for (Future<T> fu : futures) {
        out.add(fu.get());
      }
      return out;
    } finally {
      pool.shutdown();
    }
  }

  private static long micros(Fixture f, String column, long id) {
    return f.count(
        "SELECT (extract(epoch FROM "
            + column
            + ") * 1000000)::bigint FROM %s.job WHERE id = "
            + id);
  }
}
