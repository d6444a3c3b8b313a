package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.internal.db.ClaimedJob;
import dev.baton.internal.db.Finish;
import dev.baton.internal.db.HolderStore;
import dev.baton.internal.db.SchemaName;
import dev.baton.testing.BlackHoleProxy;
import dev.baton.testing.Claims;
import dev.baton.testing.Fixture;
import dev.baton.testing.TestLeader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A completion whose commit reached the server but whose reply was lost (the connection broke after
 * the statement was sent) is retried; the retry matches no running row, yet the job is completed
 * under that very fence. It is counted as completed, not as fenced, and no warning says that the
 * job was rescued. The retry's lookup does not let a holder that really lost its job count a write:
 * its job is completed under another fence.
 */
class ALostCommitReplyIsNotAFencedResultTest {

  record Mail(int n) implements JobArgs {}

  @Test
  void aCompletionWhoseReplyIsLostIsCountedCompletedNotFenced() throws Exception {
    try (Fixture f = new Fixture();
        BlackHoleProxy proxy = BlackHoleProxy.to(f.db().jdbcUrl());
        HikariDataSource viaProxy = pool(proxy.jdbcUrl(f.db().jdbcUrl()))) {
      CountDownLatch release = new CountDownLatch(1);
      CountDownLatch started = new CountDownLatch(1);
      PrintStream stderr = System.err;
      ByteArrayOutputStream captured = new ByteArrayOutputStream();
      System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
      Baton baton;
      long id;
      try {
        baton =
            Baton.builder(viaProxy)
                .config(f.config().queue("default", 1).build())
                .handler(
                    Mail.class,
                    (ctx, a) -> {
                      started.countDown();
                      release.await();
                    })
                .build();
        baton.start();
        try {
          id = f.reader().enqueue(new Mail(1)).job().id();
          assertThat(started.await(10, TimeUnit.SECONDS)).as("handler started").isTrue();
          // Both ways a completion is written (alone, or folded into the next claim) set this.
          proxy.loseReplyTo("SET state = 'completed'");
          release.countDown();
          long job = id;
          await()
              .atMost(Duration.ofSeconds(15))
              .until(
                  () ->
                      baton.counters().completed() + baton.counters().fenced() > 0
                          && f.job(job).state() == JobState.COMPLETED);
          assertThat(proxy.repliesLost()).as("replies the proxy dropped").isEqualTo(1);
          assertThat(baton.counters().completed()).as("completed").isEqualTo(1);
          assertThat(baton.counters().fenced()).as("fenced").isZero();
        } finally {
          baton.stop();
        }
      } finally {
        System.setErr(stderr);
      }
      String log = captured.toString(StandardCharsets.UTF_8);
      System.err.print(log);
      assertThat(log).doesNotContain("rescued").doesNotContain("dropped the result");
      assertThat(f.job(id).attempt()).isEqualTo(1);
    }
  }

  @Test
  void aRetryOfAHolderWhoseJobWasRescuedAndCompletedByAnotherIsStillFenced() {
    try (Fixture f = new Fixture()) {
      HolderStore store = new HolderStore(SchemaName.of(f.schema()));
      long id = f.reader().enqueue(new Mail(2)).job().id();
      ClaimedJob first = store.claim(f.dataSource(), Claims.by("a", 1)).get(0);
      TestLeader leader = TestLeader.elect(f.dataSource(), f.schema());
      leader.advance(Duration.ofMinutes(6));
      assertThat(leader.rescue()).isEqualTo(1);
      assertThat(leader.schedule()).isEqualTo(1);
      ClaimedJob second = store.claim(f.dataSource(), Claims.by("b", 1)).get(0);
      assertThat(store.finishIfHeld(f.dataSource(), List.of(Finish.completed(id, second.fence()))))
          .containsExactly(second.fence());

      Set<Long> retried =
          store.finishRetriedIfHeld(
              f.dataSource(), List.of(Finish.completed(id, first.fence())), Set.of(first.fence()));

      assertThat(retried).as("the stale holder's retried completion").isEmpty();
    }
  }

  // Statements sent as text every time, so that the proxy sees each one.
  private static HikariDataSource pool(String jdbcUrl) {
    HikariConfig cfg = new HikariConfig();
    cfg.setJdbcUrl(jdbcUrl + (jdbcUrl.contains("?") ? "&" : "?") + "prepareThreshold=0");
    cfg.setMaximumPoolSize(8);
    cfg.setMinimumIdle(0);
    cfg.setPoolName("lost-reply");
    return new HikariDataSource(cfg);
  }
}
