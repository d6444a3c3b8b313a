package dev.baton.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.JobArgs;
import dev.baton.JobHandler;
import dev.baton.opentelemetry.BatonTracing;
import dev.baton.test.Outcome;
import dev.baton.test.TestBaton;
import dev.baton.test.TestDatabase;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * With baton-opentelemetry on the classpath and an {@code OpenTelemetry} bean, the starter traces
 * the client's jobs; without either, it configures nothing.
 */
class TracingAutoConfigurationTest {
  record Ping(int n) implements JobArgs {}

  static class PingHandler implements JobHandler<Ping> {
    @Override
    public void work(dev.baton.JobContext context, Ping ping) {}
  }

  private final InMemorySpanExporter spans = InMemorySpanExporter.create();

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  BatonAutoConfiguration.class, BatonTracingAutoConfiguration.class))
          .withBean(DataSource.class, TracingAutoConfigurationTest::dataSource)
          .withBean(PingHandler.class)
          .withPropertyValues(
              "baton.enabled=false",
              "baton.migrate=true",
              "baton.known-kinds=ping",
              "baton.schema=" + TestDatabase.get().newSchema().name());

  @Test
  void anOpenTelemetryBeanTracesEachHandlerAttempt() {
    runner
        .withBean(OpenTelemetry.class, this::openTelemetry)
        .run(
            context -> {
              assertThat(context).hasNotFailed().hasBean("batonTracingCustomizer");
              Baton baton = context.getBean(Baton.class);
              baton.enqueue(new Ping(1));

              assertThat(TestBaton.of(baton, context.getBean(DataSource.class)).drain("default"))
                  .extracting(j -> j.outcome())
                  .containsExactly(Outcome.COMPLETED);
              assertThat(spans.getFinishedSpanItems())
                  .extracting(SpanData::getName)
                  .containsExactly("process default");
            });
  }

  @Test
  void theStarterListsTheTracingAutoConfiguration() {
    assertThat(ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader()))
        .contains(BatonTracingAutoConfiguration.class.getName());
  }

  @Test
  void withoutAnOpenTelemetryBeanNothingIsConfigured() {
    runner.run(
        context -> assertThat(context).hasNotFailed().doesNotHaveBean("batonTracingCustomizer"));
  }

  @Test
  void withoutBatonOpenTelemetryNothingIsConfigured() {
    runner
        .withClassLoader(new FilteredClassLoader(BatonTracing.class))
        .withBean(OpenTelemetry.class, this::openTelemetry)
        .run(
            context ->
                assertThat(context).hasNotFailed().doesNotHaveBean("batonTracingCustomizer"));
  }

  private OpenTelemetry openTelemetry() {
    return OpenTelemetrySdk.builder()
        .setTracerProvider(
            SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
        .build();
  }

  private static DataSource dataSource() {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(TestDatabase.get().jdbcUrl());
    return ds;
  }
}
