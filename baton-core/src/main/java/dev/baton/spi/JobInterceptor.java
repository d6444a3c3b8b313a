package dev.baton.spi;

import dev.baton.EnqueueOptions;
import dev.baton.JobContext;
import java.util.Map;

/**
 * Wraps a client's enqueues and handler runs, for cross-cutting concerns such as tracing: an
 * interceptor may add metadata to each job it sees enqueued (a trace context, a tenant), and runs
 * around each attempt of each handler (a span, a context read back from that metadata). Registered
 * with {@link dev.baton.Baton.Builder#interceptor(JobInterceptor)}; {@code baton-opentelemetry}
 * ships one.
 *
 * <p>Concurrency and failure: both methods are called from many threads at once, so an interceptor
 * must be thread-safe. {@link #enqueueMetadata} runs on the enqueuing thread, before the job is
 * written (inside the caller's transaction for the {@code Connection} overloads); an exception it
 * throws fails the enqueue. {@link #aroundHandler} runs on the handler's thread; what it throws is
 * the attempt's outcome, as if the handler had thrown it.
 */
public interface JobInterceptor {

  /**
   * Metadata entries to store with a job about to be enqueued, called once per job of every enqueue
   * of the client (not for periodic jobs, whose metadata is fixed when the client is built). An
   * entry the caller set in {@link EnqueueOptions#metadata()} wins over one of the same key
   * returned here; values must be JSON-serialisable. Default: none.
   *
   * @param kind the job's kind
   * @param options the options the caller gave
   */
  default Map<String, ?> enqueueMetadata(String kind, EnqueueOptions options) {
    return Map.of();
  }

  /**
   * Runs one attempt of a handler: call {@code attempt.proceed()} once, on this thread, and let
   * what it throws propagate (it decides the outcome: {@link dev.baton.SnoozeJob} and {@link
   * dev.baton.CancelJob} are thrown as well). The first interceptor registered is the outermost.
   * The logging MDC already holds the job's fields ({@code job_id}, {@code kind}, {@code queue},
   * {@code attempt}) when this is called. Default: just proceeds.
   *
   * @param context the attempt's context (its metadata holds what {@link #enqueueMetadata} added)
   * @param attempt the rest of the chain, ending in the handler
   */
  default void aroundHandler(JobContext context, Attempt attempt) throws Exception {
    attempt.proceed();
  }

  /** The rest of an interceptor chain, ending in the handler. */
  @FunctionalInterface
  interface Attempt {
    /** Runs the rest of the chain and the handler. */
    void proceed() throws Exception;
  }
}
