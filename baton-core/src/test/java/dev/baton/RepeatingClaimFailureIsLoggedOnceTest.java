package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testing.Fixture;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A claim that fails the same way every poll until someone acts (here the fence sequence is
 * exhausted; a revoked grant on it fails alike) is logged once with its stack trace, then at most
 * once a minute, and its end once: not a stack trace every poll.
 */
class RepeatingClaimFailureIsLoggedOnceTest {

  record Tick(int n) implements JobArgs {}

  @Test
  void aClaimFailingEveryPollLogsOneStackTraceAndItsEnd() {
    PrintStream stderr = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    try (Fixture f = new Fixture()) {
      long id = f.reader().enqueue(new Tick(1)).job().id();
      f.execute("SELECT setval('%s.job_fence_seq', 2)");
      f.execute("ALTER SEQUENCE %s.job_fence_seq MAXVALUE 2");
      System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
      f.start(
          f.config().queue("default", 1).pollInterval(Duration.ofMillis(100)).build(),
          b -> b.handler(Tick.class, (ctx, t) -> {}));
      // About 30 polls fail meanwhile.
      await()
          .during(Duration.ofSeconds(3))
          .atMost(Duration.ofSeconds(10))
          .until(() -> traces(captured) <= 1);
      assertThat(text(captured))
          .contains("cannot claim jobs of queue default; retrying every 100 ms")
          .contains("reached maximum value of sequence");
      assertThat(traces(captured)).isEqualTo(1);
      f.execute("ALTER SEQUENCE %s.job_fence_seq NO MAXVALUE");
      await().atMost(Duration.ofSeconds(10)).until(() -> f.job(id).state() == JobState.COMPLETED);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> text(captured).contains("cannot claim jobs of queue default: works again"));
    } finally {
      System.setErr(stderr);
      System.err.print(text(captured));
    }
  }

  private static String text(ByteArrayOutputStream captured) {
    return captured.toString(StandardCharsets.UTF_8);
  }

  /** Stack traces printed of the claim's failure: each has one frame of the claim loop. */
  private static long traces(ByteArrayOutputStream captured) {
    return text(captured)
        .lines()
        .filter(l -> l.contains("at dev.baton.internal.producer.Producer.claimLoop"))
        .count();
  }
}
