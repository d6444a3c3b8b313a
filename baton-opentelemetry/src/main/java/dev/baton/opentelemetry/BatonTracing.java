package dev.baton.opentelemetry;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.EnqueueOptions;
import dev.baton.JobContext;
import dev.baton.SnoozeJob;
import dev.baton.spi.JobInterceptor;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Traces Baton jobs with OpenTelemetry: a job enqueued while a span is current carries that span's
 * context in its metadata (W3C {@code traceparent} and {@code tracestate} entries), and each
 * attempt of its handler runs in a {@link SpanKind#CONSUMER} span whose parent is that context, so
 * a trace shows the request that enqueued the job and then the job. Register it on the client:
 *
 * <pre>{@code
 * Baton baton = Baton.builder(dataSource)
 *     .interceptor(BatonTracing.create(openTelemetry))
 *     .handler(SendEmail.class, handler)
 *     .build();
 * }</pre>
 *
 * <p>The handler's span is named {@code process <queue>} and follows OpenTelemetry's messaging
 * conventions: {@code messaging.system=baton}, {@code messaging.destination.name} (the queue),
 * {@code messaging.operation.name=process}, {@code messaging.operation.type=process}, {@code
 * messaging.message.id} (the job id), plus {@code baton.job.kind} and {@code baton.job.attempt}. It
 * is current while the handler runs, so spans the handler starts are its children. A throw records
 * the exception and sets the status to error with {@code error.type}; a snooze is not an error.
 * Jobs enqueued with no span current carry nothing, and their handler spans are roots.
 *
 * <p>Thread-safe. Enqueues by other clients (or by {@code baton enqueue}) carry no context unless
 * they register the same interceptor.
 */
public final class BatonTracing implements JobInterceptor {

  /** The instrumentation scope of the spans. */
  public static final String INSTRUMENTATION_SCOPE = "dev.baton.opentelemetry";

  static final AttributeKey<String> MESSAGING_SYSTEM = AttributeKey.stringKey("messaging.system");
  static final AttributeKey<String> DESTINATION =
      AttributeKey.stringKey("messaging.destination.name");
  static final AttributeKey<String> OPERATION_NAME =
      AttributeKey.stringKey("messaging.operation.name");
  static final AttributeKey<String> OPERATION_TYPE =
      AttributeKey.stringKey("messaging.operation.type");
  static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
  static final AttributeKey<String> KIND = AttributeKey.stringKey("baton.job.kind");
  static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("baton.job.attempt");
  static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

  private static final TextMapGetter<JsonNode> METADATA =
      new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(JsonNode carrier) {
          List<String> keys = new ArrayList<>();
          carrier.fieldNames().forEachRemaining(keys::add);
          return keys;
        }

        @Override
        public String get(JsonNode carrier, String key) {
          JsonNode v = carrier == null ? null : carrier.get(key);
          return v != null && v.isTextual() ? v.asText() : null;
        }
      };

  private final Tracer tracer;
  private final TextMapPropagator propagator;

  private BatonTracing(Tracer tracer, TextMapPropagator propagator) {
    this.tracer = tracer;
    this.propagator = propagator;
  }

  /**
   * Tracing with {@code openTelemetry}'s tracer, propagating the W3C trace context whatever
   * propagators {@code openTelemetry} is configured with (the metadata is Baton's own carrier).
   */
  public static BatonTracing create(OpenTelemetry openTelemetry) {
    return create(openTelemetry, W3CTraceContextPropagator.getInstance());
  }

  /** Tracing with {@code openTelemetry}'s tracer, propagating with {@code propagator}. */
  public static BatonTracing create(OpenTelemetry openTelemetry, TextMapPropagator propagator) {
    Objects.requireNonNull(openTelemetry, "openTelemetry");
    Objects.requireNonNull(propagator, "propagator");
    return new BatonTracing(openTelemetry.getTracer(INSTRUMENTATION_SCOPE), propagator);
  }

  /**
   * The current context's trace entries ({@code traceparent}, {@code tracestate}); may be empty.
   */
  @Override
  public Map<String, ?> enqueueMetadata(String kind, EnqueueOptions options) {
    Map<String, String> carrier = new LinkedHashMap<>();
    propagator.inject(Context.current(), carrier, (c, k, v) -> c.put(k, v));
    return carrier;
  }

  /** Runs the attempt in a consumer span whose parent is the context stored at enqueue. */
  @Override
  public void aroundHandler(JobContext context, Attempt attempt) throws Exception {
    Context parent = propagator.extract(Context.root(), context.metadata(), METADATA);
    Span span =
        tracer
            .spanBuilder("process " + context.queue())
            .setParent(parent)
            .setSpanKind(SpanKind.CONSUMER)
            .setAttribute(MESSAGING_SYSTEM, "baton")
            .setAttribute(DESTINATION, context.queue())
            .setAttribute(OPERATION_NAME, "process")
            .setAttribute(OPERATION_TYPE, "process")
            .setAttribute(MESSAGE_ID, Long.toString(context.jobId()))
            .setAttribute(KIND, context.kind())
            .setAttribute(ATTEMPT, (long) context.attempt())
            .startSpan();
    try (Scope ignored = span.makeCurrent()) {
      attempt.proceed();
    } catch (SnoozeJob snooze) {
      span.addEvent("snoozed");
      throw snooze;
    } catch (Exception | Error e) {
      span.recordException(e);
      span.setStatus(StatusCode.ERROR, String.valueOf(e.getMessage()));
      span.setAttribute(ERROR_TYPE, e.getClass().getName());
      throw e;
    } finally {
      span.end();
    }
  }
}
