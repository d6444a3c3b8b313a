package dev.baton.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.Drain;
import dev.baton.EnqueueOptions;
import dev.baton.JobArgs;
import dev.baton.test.BatonExtension;
import dev.baton.test.TestSchema;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A trace goes from the request that enqueued a job to the job's handler: the handler's span, on a
 * worker thread, is a child of the span that was current at enqueue.
 */
@ExtendWith(BatonExtension.class)
class HandlerSpanIsAChildOfTheEnqueueTest {

  record SendEmail(long orderId) implements JobArgs {}

  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private OpenTelemetrySdk otel;

  @BeforeEach
  void setUp() {
    otel =
        OpenTelemetrySdk.builder()
            .setTracerProvider(
                SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                    .build())
            .build();
  }

  @AfterEach
  void tearDown() {
    otel.close();
  }

  @Test
  void theHandlersSpanOnAWorkerIsAChildOfTheSpanCurrentAtEnqueue(TestSchema schema)
      throws Exception {
    CompletableFuture<SpanContext> inHandler = new CompletableFuture<>();
    Baton baton =
        Baton.builder(schema.dataSource())
            .config(schema.config().queue("mail", 1).pollInterval(Duration.ofMillis(200)).build())
            .interceptor(BatonTracing.create(otel))
            .handler(
                SendEmail.class, (ctx, e) -> inHandler.complete(Span.current().getSpanContext()))
            .build();
    baton.start();
    SpanContext request;
    long id;
    try {
      Span span = otel.getTracer("shop").spanBuilder("POST /orders").startSpan();
      try (Scope ignored = span.makeCurrent()) {
        id = baton.enqueue(new SendEmail(42), EnqueueOptions.builder().queue("mail").build()).id();
      } finally {
        span.end();
      }
      request = span.getSpanContext();
      SpanContext current = inHandler.get(30, TimeUnit.SECONDS);
      assertThat(current.getTraceId()).isEqualTo(request.getTraceId());
    } finally {
      baton.stop();
    }

    SpanData handler = handlerSpan();
    assertThat(handler.getParentSpanId()).isEqualTo(request.getSpanId());
    assertThat(handler.getTraceId()).isEqualTo(request.getTraceId());
    assertThat(handler.getParentSpanContext().isRemote()).isTrue();
    assertThat(handler.getKind()).isEqualTo(SpanKind.CONSUMER);
    assertThat(handler.getName()).isEqualTo("process mail");
    assertThat(handler.getAttributes().get(BatonTracing.MESSAGING_SYSTEM)).isEqualTo("baton");
    assertThat(handler.getAttributes().get(BatonTracing.DESTINATION)).isEqualTo("mail");
    assertThat(handler.getAttributes().get(BatonTracing.OPERATION_TYPE)).isEqualTo("process");
    assertThat(handler.getAttributes().get(BatonTracing.MESSAGE_ID)).isEqualTo(Long.toString(id));
    assertThat(handler.getAttributes().get(BatonTracing.KIND)).isEqualTo("send_email");
    assertThat(handler.getAttributes().get(BatonTracing.ATTEMPT)).isEqualTo(1L);
    assertThat(baton.job(id).orElseThrow().metadata().path("traceparent").asText())
        .contains(request.getTraceId())
        .contains(request.getSpanId());
  }

  @Test
  void aFailedAttemptsSpanRecordsTheErrorAndAJobEnqueuedOutsideASpanGetsARootSpan(
      TestSchema schema) {
    Baton baton =
        Baton.builder(schema.dataSource())
            .config(schema.config().build())
            .interceptor(BatonTracing.create(otel))
            .handler(
                SendEmail.class,
                (ctx, e) -> {
                  throw new IllegalStateException("smtp down");
                })
            .build();
    baton.enqueue(new SendEmail(7), EnqueueOptions.builder().queue("failing").build());

    Drain.run(baton, "failing", Instant.now().plus(Duration.ofDays(1)));

    SpanData handler = handlerSpan();
    assertThat(handler.getParentSpanContext().isValid()).isFalse();
    assertThat(handler.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(handler.getAttributes().get(BatonTracing.ERROR_TYPE))
        .isEqualTo(IllegalStateException.class.getName());
    assertThat(handler.getEvents()).anySatisfy(e -> assertThat(e.getName()).isEqualTo("exception"));
  }

  private SpanData handlerSpan() {
    List<SpanData> spans =
        exporter.getFinishedSpanItems().stream()
            .filter(s -> s.getKind() == SpanKind.CONSUMER)
            .toList();
    assertThat(spans).hasSize(1);
    return spans.get(0);
  }
}
