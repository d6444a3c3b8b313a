package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testing.CapturedLog;
import dev.baton.testing.Fixture;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A team sees failures in its logs: a failed attempt at INFO with its exception, a discarded job at
 * WARN, and the jobs handed back at stop at INFO.
 */
class FailuresAreLoggedTest {

  record Mail(int n) implements JobArgs {}

  private static final String FAILURES = "dev.baton.failures";

  @Test
  void aFailedAttemptIsLoggedWithItsExceptionAndADiscardAtWarn() {
    try (CapturedLog log = new CapturedLog();
        Fixture f = new Fixture()) {
      Baton baton =
          f.start(
              f.config().queue("default", 1).retryPolicy((a, e) -> Duration.ofMillis(10)).build(),
              b ->
                  b.handler(
                      Mail.class,
                      (ctx, args) -> {
                        throw new IllegalStateException("smtp said no to mail " + args.n());
                      }));
      long id =
          baton.enqueue(new Mail(7), EnqueueOptions.builder().maxAttempts(2).build()).job().id();
      await().atMost(Duration.ofSeconds(10)).until(() -> f.job(id).state() == JobState.DISCARDED);
      await().atMost(Duration.ofSeconds(5)).until(() -> !log.lines("WARN", FAILURES).isEmpty());
      assertThat(log.lines("INFO", FAILURES))
          .singleElement()
          .asString()
          .contains("job " + id + " (kind mail, queue default) failed attempt 1 of 2")
          .contains("java.lang.IllegalStateException: smtp said no to mail 7")
          .contains("retrying in");
      assertThat(log.lines("WARN", FAILURES))
          .singleElement()
          .asString()
          .contains("job " + id + " (kind mail, queue default) failed attempt 2 of 2")
          .contains("discarded");
      // Each line comes with its stack trace.
      assertThat(log.text())
          .contains("at dev.baton.FailuresAreLoggedTest")
          .contains("java.lang.IllegalStateException: smtp said no to mail 7\n\tat ");
    }
  }

  @Test
  void jobsHandedBackAtStopAreLogged() throws Exception {
    try (CapturedLog log = new CapturedLog();
        Fixture f = new Fixture()) {
      CountDownLatch started = new CountDownLatch(1);
      Baton baton =
          f.start(
              f.config().queue("default", 2).stopTimeout(Duration.ofMillis(200)).build(),
              b ->
                  b.handler(
                      Mail.class,
                      (ctx, args) -> {
                        started.countDown();
                        Fixture.blockUntilInterrupted();
                      }));
      baton.enqueue(new Mail(1));
      assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
      baton.stop();
      assertThat(log.lines("INFO", "dev.baton.internal.node.Node"))
          .anySatisfy(l -> assertThat(l).contains("handed back 1 jobs at stop"));
    }
  }
}
