package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testing.CapturedLog;
import dev.baton.testing.Fixture;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The README's trap: a node works only {@code email}, its service enqueues to {@code default}. The
 * node has a handler for the kind, so it warns, once, that the kind's jobs wait in a queue no live
 * node works.
 */
class AKindWaitingInAQueueNoNodeWorksIsWarnedTest {

  record SendEmail(int order) implements JobArgs {}

  private static final String LOGGER = "dev.baton.internal.node.StrandedJobs";

  @Test
  void aNodeWithAHandlerWarnsOnceAboutItsKindWaitingInAnUnworkedQueue() {
    try (CapturedLog log = new CapturedLog();
        Fixture f = new Fixture()) {
      Baton baton =
          f.start(
              f.config().queue("email", 2).nodeHeartbeatInterval(Duration.ofMillis(100)).build(),
              b -> b.handler(SendEmail.class, (ctx, args) -> {}));
      long worked =
          baton
              .enqueue(new SendEmail(1), EnqueueOptions.builder().queue("email").build())
              .job()
              .id();
      baton.enqueue(new SendEmail(2)); // to "default"
      await().atMost(Duration.ofSeconds(10)).until(() -> !log.lines("WARN", LOGGER).isEmpty());
      assertThat(f.job(worked).state()).isEqualTo(JobState.COMPLETED);
      // Twenty more checks say nothing more.
      await()
          .during(Duration.ofSeconds(2))
          .atMost(Duration.ofSeconds(5))
          .until(() -> log.lines("WARN", LOGGER).size() == 1);
      assertThat(log.lines("WARN", LOGGER))
          .singleElement()
          .asString()
          .contains("jobs of kind send_email wait in queue default (1 seen)")
          .contains("works queues [email]");
    }
  }

  @Test
  void noWarningWhenAnotherLiveNodeWorksTheQueue() {
    try (CapturedLog log = new CapturedLog();
        Fixture f = new Fixture()) {
      f.start(
          f.config()
              .nodeId("other")
              .queue("default", 1)
              .stopTimeout(Duration.ofMillis(100))
              .build(),
          b -> b.handler(SendEmail.class, (ctx, args) -> Fixture.blockUntilInterrupted()));
      Baton baton =
          f.start(
              f.config()
                  .nodeId("email-only")
                  .queue("email", 2)
                  .nodeHeartbeatInterval(Duration.ofMillis(100))
                  .build(),
              b -> b.handler(SendEmail.class, (ctx, args) -> {}));
      for (int i = 0; i < 3; i++) {
        baton.enqueue(new SendEmail(i)); // "other" holds one, two wait
      }
      await()
          .during(Duration.ofSeconds(2))
          .atMost(Duration.ofSeconds(5))
          .until(() -> log.lines("WARN", LOGGER).isEmpty());
    }
  }
}
