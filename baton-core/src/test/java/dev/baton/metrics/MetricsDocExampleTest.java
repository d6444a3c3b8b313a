package dev.baton.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.JobArgs;
import dev.baton.testing.Fixture;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The outline at the top of docs/metrics.md, as written there: a started client's metrics bound to
 * a registry count its jobs, and closing them removes the meters.
 */
class MetricsDocExampleTest {

  record SendEmail(String to) implements JobArgs {}

  @Test
  void bindCountAndClose() {
    try (Fixture f = new Fixture()) {
      DataSource dataSource = f.dataSource();
      BatonConfig config = f.config().queue("default", 2).build();
      MeterRegistry registry = new SimpleMeterRegistry();
      // docs:begin outline
      Baton baton =
          Baton.builder(dataSource)
              .config(config)
              .handler(SendEmail.class, (ctx, email) -> {})
              .build();
      baton.start();

      BatonMetrics metrics = new BatonMetrics(baton); // or BatonMetrics.builder(baton)...build()
      metrics.bindTo(registry); // e.g. a PrometheusMeterRegistry
      // the application runs
      // docs:end outline
      runsOneJob(baton, registry);
      // docs:begin outline
      metrics.close(); // removes the meters, stops the refresh thread; before or after stop()
      baton.stop();
      // docs:end outline
      assertThat(registry.find("baton.job.attempts").meters()).isEmpty();
    }
  }

  /** Runs one job and waits until the metrics counted its attempt (fails the test if not). */
  private static void runsOneJob(Baton baton, MeterRegistry registry) {
    try {
      baton.enqueue(new SendEmail("a@example.com"));
      await()
          .atMost(Duration.ofSeconds(15))
          .until(
              () -> {
                var succeeded =
                    registry.find("baton.job.attempts").tag("outcome", "succeeded").counter();
                return succeeded != null && succeeded.count() == 1;
              });
    } catch (RuntimeException | Error e) {
      baton.stop();
      throw e;
    }
  }
}
