package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.internal.completer.Completer;
import dev.baton.internal.db.ClaimedJob;
import dev.baton.internal.db.Finish;
import dev.baton.internal.db.HolderStore;
import dev.baton.internal.db.SchemaName;
import dev.baton.internal.executor.HeldJobs;
import dev.baton.internal.executor.NodeCounters;
import dev.baton.internal.executor.RunningJob;
import dev.baton.testing.Claims;
import dev.baton.testing.Fixture;
import dev.baton.testing.TestLeader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/**
 * A completion whose commit reached the server but whose reply was lost is retried by the
 * completer. The retry matches no running row, yet the job is completed under that very fence: it
 * is this holder's own write, counted as written, not as fenced, and no warning claims a rescue. A
 * completion of a holder that really lost the job (rescued, claimed again under a new fence, and
 * completed by its new holder) is still fenced.
 */
class ARetriedCompletionRecognisesItsOwnWriteTest {

  record Work(int n) implements JobArgs {}

  @Test
  void aCompletionRetriedAfterItsCommitIsCountedAsWritten() throws Exception {
    try (Fixture f = new Fixture()) {
      HolderStore store = new HolderStore(SchemaName.of(f.schema()));
      long id = f.reader().enqueue(new Work(1)).job().id();
      ClaimedJob claimed = store.claim(f.dataSource(), Claims.by("a", 1)).get(0);
      // The first attempt commits; its reply is lost, so the completer retries the same finish.
      assertThat(store.finishIfHeld(f.dataSource(), List.of(Finish.completed(id, claimed.fence()))))
          .containsExactly(claimed.fence());

      Outcome out = retryThroughCompleter(f, store, claimed);

      assertThat(out.written()).as("counted as written").isEqualTo(1);
      assertThat(out.fenced()).as("fenced").isZero();
      assertThat(out.log()).doesNotContain("rescued").doesNotContain("dropped the result");
      assertThat(f.job(id).state()).isEqualTo(JobState.COMPLETED);
    }
  }

  @Test
  void aCompletionOfAHolderWhoseJobWasRescuedAndClaimedAgainIsStillFenced() throws Exception {
    try (Fixture f = new Fixture()) {
      HolderStore store = new HolderStore(SchemaName.of(f.schema()));
      long id = f.reader().enqueue(new Work(2)).job().id();
      ClaimedJob first = store.claim(f.dataSource(), Claims.by("a", 1)).get(0);
      TestLeader leader = TestLeader.elect(f.dataSource(), f.schema());
      leader.advance(Duration.ofMinutes(6));
      assertThat(leader.rescue()).isEqualTo(1);
      assertThat(leader.schedule()).isEqualTo(1);
      ClaimedJob second = store.claim(f.dataSource(), Claims.by("b", 1)).get(0);
      assertThat(second.fence()).isGreaterThan(first.fence());
      // The new holder completes: the row is completed, but under the new fence.
      assertThat(store.finishIfHeld(f.dataSource(), List.of(Finish.completed(id, second.fence()))))
          .containsExactly(second.fence());

      Outcome out = retryThroughCompleter(f, store, first);

      assertThat(out.written()).as("counted as written").isZero();
      assertThat(out.fenced()).as("fenced").isEqualTo(1);
      assertThat(out.log()).contains("dropped the result of job " + id);
    }
  }

  record Outcome(long written, long fenced, String log) {}

  /** Submits the plain completion of {@code claimed} to a completer and waits until it settles. */
  private static Outcome retryThroughCompleter(Fixture f, HolderStore store, ClaimedJob claimed)
      throws Exception {
    NodeCounters counters = new NodeCounters();
    Completer completer =
        new Completer(
            f.dataSource(), store, new HeldJobs(), counters, 16, 64, Duration.ofMillis(10));
    LongAdder written = new LongAdder();
    PrintStream stderr = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      completer.start();
      RunningJob job = new RunningJob(claimed, () -> {}, System.nanoTime(), Duration.ofMinutes(5));
      completer.submit(job, Finish.completed(claimed.id(), claimed.fence()), written);
      await().atMost(Duration.ofSeconds(10)).until(() -> written.sum() + counters.fenced.sum() > 0);
      completer.stop(Duration.ofSeconds(5));
    } finally {
      System.setErr(stderr);
    }
    String log = captured.toString(StandardCharsets.UTF_8);
    System.err.print(log);
    return new Outcome(written.sum(), counters.fenced.sum(), log);
  }
}
