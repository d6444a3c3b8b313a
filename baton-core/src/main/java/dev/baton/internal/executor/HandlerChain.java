package dev.baton.internal.executor;

import dev.baton.JobArgs;
import dev.baton.JobContext;
import dev.baton.JobHandler;
import dev.baton.spi.JobInterceptor;
import java.util.List;
import org.slf4j.MDC;

/**
 * A registered handler as the executor calls it: with the job's fields in the logging MDC while it
 * runs, inside the client's interceptors. Not public API.
 */
public final class HandlerChain {

  /** MDC key of the job id. */
  public static final String MDC_JOB_ID = "job_id";

  /** MDC key of the job's kind. */
  public static final String MDC_KIND = "kind";

  /** MDC key of the job's queue. */
  public static final String MDC_QUEUE = "queue";

  /** MDC key of the attempt, 1-based. */
  public static final String MDC_ATTEMPT = "attempt";

  private HandlerChain() {}

  /** {@code handler} with MDC fields set on its thread and cleared after, inside {@code chain}. */
  public static <A extends JobArgs> JobHandler<A> wrap(
      JobHandler<A> handler, List<JobInterceptor> chain) {
    List<JobInterceptor> interceptors = List.copyOf(chain);
    return (ctx, args) -> {
      MDC.put(MDC_JOB_ID, Long.toString(ctx.jobId()));
      MDC.put(MDC_KIND, ctx.kind());
      MDC.put(MDC_QUEUE, ctx.queue());
      MDC.put(MDC_ATTEMPT, Integer.toString(ctx.attempt()));
      try {
        if (interceptors.isEmpty()) {
          handler.work(ctx, args); // the common case: no chain to build per job
        } else {
          proceed(interceptors, 0, ctx, () -> handler.work(ctx, args));
        }
      } finally {
        MDC.remove(MDC_JOB_ID);
        MDC.remove(MDC_KIND);
        MDC.remove(MDC_QUEUE);
        MDC.remove(MDC_ATTEMPT);
      }
    };
  }

  private static void proceed(
      List<JobInterceptor> interceptors, int from, JobContext ctx, JobInterceptor.Attempt handler)
      throws Exception {
    if (from == interceptors.size()) {
      handler.proceed();
    } else {
      interceptors
          .get(from)
          .aroundHandler(ctx, () -> proceed(interceptors, from + 1, ctx, handler));
    }
  }
}
