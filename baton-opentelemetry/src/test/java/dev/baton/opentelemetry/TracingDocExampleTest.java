package dev.baton.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.Drain;
import dev.baton.EnqueueOptions;
import dev.baton.JobArgs;
import dev.baton.JobHandler;
import dev.baton.migrate.Migrator;
import dev.baton.test.TestDatabase;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

// The example of docs/tracing.md: the text between the docs markers below is quoted there verbatim
// (DocSnippetsAreCompiledTest) and runs here as written, on the default schema "baton".
class TracingDocExampleTest {

  record SendEmail(long orderId) implements JobArgs {}

  @Test
  void theTracingPagesClientCarriesTheEnqueuersTraceToTheHandler() throws Exception {
    DataSource dataSource = TestDatabase.get().dataSource();
    dropSchemaBaton(dataSource);
    new Migrator(dataSource, "baton").up();
    CompletableFuture<SpanContext> inHandler = new CompletableFuture<>();
    JobHandler<SendEmail> handler =
        (ctx, email) -> inHandler.complete(Span.current().getSpanContext());
    try (OpenTelemetrySdk openTelemetry =
        OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider.builder().build()).build()) {

      // docs:begin tracing
      Baton baton =
          Baton.builder(dataSource)
              .interceptor(BatonTracing.create(openTelemetry))
              .handler(SendEmail.class, handler)
              .build();
      // docs:end tracing

      Span request = openTelemetry.getTracer("shop").spanBuilder("POST /orders").startSpan();
      try (Scope ignored = request.makeCurrent()) {
        baton.enqueue(new SendEmail(42), EnqueueOptions.builder().build());
      } finally {
        request.end();
      }
      Drain.run(baton, "default", Instant.now());

      assertThat(inHandler.getNow(null)).as("the handler ran").isNotNull();
      assertThat(inHandler.getNow(null).getTraceId())
          .isEqualTo(request.getSpanContext().getTraceId());
    } finally {
      dropSchemaBaton(dataSource);
    }
  }

  private static void dropSchemaBaton(DataSource dataSource) throws Exception {
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement()) {
      st.execute("DROP SCHEMA IF EXISTS baton CASCADE");
    }
  }
}
