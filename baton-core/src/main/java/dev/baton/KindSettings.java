package dev.baton;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Settings of a kind of job written on its args class or on its handler's class: the lowest-ranked
 * way to set a {@link KindConfig}. Each element left at its default is unset.
 *
 * <pre>{@code
 * @KindSettings(queue = "mail", maxAttempts = 5, timeout = "30s")
 * record SendEmail(long orderId, String to) implements JobArgs {}
 * }</pre>
 *
 * <p>Durations are written as a whole number and a unit, {@code ms}, {@code s}, {@code m}, {@code
 * h} or {@code d} ({@code 30s}), or in ISO-8601 ({@code PT30S}). A value that cannot be read, or is
 * out of {@link KindConfig.Builder}'s range, fails when the client is built, naming the class and
 * the element.
 *
 * <p>Where the settings come from, highest first: a timeout given to {@link
 * Baton.Builder#handler(Class, java.time.Duration, JobHandler)}; the client's config ({@link
 * BatonConfig.Builder#kind(String, KindConfig)}, which the Spring Boot starter fills from {@code
 * baton.kinds.<kind>.*}); this annotation on the handler's class; this annotation on the args
 * class; the client's defaults. The queue and the max attempts are applied where a job is enqueued:
 * from the args class on every client, from a handler's class only on a client that registered that
 * handler.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface KindSettings {
  /** Timeout of the kind's handler, e.g. {@code 30s}; empty for unset. */
  String timeout() default "";

  /** Attempts before a failure discards a job of the kind, 1..1000; 0 for unset. */
  int maxAttempts() default 0;

  /** Queue of a job of the kind whose enqueue names none; empty for unset. */
  String queue() default "";

  /**
   * Delay after the first failed attempt of an exponential retry policy ({@link
   * RetryPolicy#exponential(java.time.Duration, java.time.Duration)}), e.g. {@code 5s}; empty for
   * unset. Setting it or {@link #retryCap()} sets the kind's retry policy, the other taking {@link
   * RetryPolicy}'s default.
   */
  String retryBase() default "";

  /** Longest delay of that exponential retry policy, e.g. {@code 10m}; empty for unset. */
  String retryCap() default "";
}
