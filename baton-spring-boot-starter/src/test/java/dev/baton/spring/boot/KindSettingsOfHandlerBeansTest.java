package dev.baton.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.Drain;
import dev.baton.Job;
import dev.baton.JobArgs;
import dev.baton.JobContext;
import dev.baton.JobHandler;
import dev.baton.JobRun;
import dev.baton.JobState;
import dev.baton.KindConfig;
import dev.baton.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code baton.kinds.<kind>.*} reaches a handler that is a bean (its timeout and retry policy) and
 * the enqueues of its kind (queue, max attempts); a customizer's change of the config wins over the
 * property, and leaves the kind's other properties in place.
 */
class KindSettingsOfHandlerBeansTest {
  private static final TestDatabase DB = TestDatabase.get();
  private static final String SCHEMA = DB.newMigratedSchema();

  record Slow(int n) implements JobArgs {}

  static final class SlowHandler implements JobHandler<Slow> {
    @Override
    public void work(JobContext ctx, Slow args) throws Exception {
      Thread.sleep(Duration.ofMinutes(10).toMillis()); // until the kind's timeout interrupts it
    }
  }

  private final ApplicationContextRunner contexts =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(BatonAutoConfiguration.class))
          .withBean(DataSource.class, () -> DB.dataSource(4)) // closed with the context
          .withBean(SlowHandler.class)
          .withPropertyValues(
              "baton.enabled=false",
              "baton.schema=" + SCHEMA,
              "baton.kinds.slow.timeout=20ms",
              "baton.kinds.slow.retry.base=3h",
              "baton.kinds.slow.retry.cap=3h",
              "baton.kinds.slow.max-attempts=4",
              "baton.kinds.slow.queue=slow");

  @Test
  void kindPropertiesReachTheHandlerBeanAndTheEnqueue() {
    contexts.run(
        context -> {
          assertThat(context).hasNotFailed();
          Baton baton = context.getBean(Baton.class);

          Job job = baton.enqueue(new Slow(1)).job();
          assertThat(job.queue()).isEqualTo("slow");
          assertThat(job.maxAttempts()).isEqualTo(4);

          Instant now = Instant.now();
          assertThat(Drain.run(baton, "slow", now))
              .singleElement()
              .extracting(JobRun::state)
              .isEqualTo(JobState.RETRYABLE);
          Duration delay = Duration.between(now, baton.job(job.id()).orElseThrow().scheduledAt());
          assertThat(delay).isBetween(Duration.ofMinutes(144), Duration.ofMinutes(216));
        });
  }

  @Test
  void aCustomizersChangeWinsOverTheProperty() {
    contexts
        .withBean(
            BatonBuilderCustomizer.class,
            () ->
                builder ->
                    builder.config(
                        builder.config().toBuilder()
                            .kind("slow", KindConfig.builder().maxAttempts(9).build())
                            .build()))
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              Job job = context.getBean(Baton.class).enqueue(new Slow(2)).job();

              assertThat(job.maxAttempts()).isEqualTo(9);
              assertThat(job.queue()).isEqualTo("slow");
            });
  }

  @Test
  void aBadKindPropertyFailsStartupNamingIt() {
    contexts
        .withPropertyValues("baton.kinds.slow.max-attempts=0")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining(
                        "baton.kinds.slow.max-attempts must be 1..1000, got \"0\""));
  }
}
