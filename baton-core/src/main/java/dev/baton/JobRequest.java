package dev.baton;

import java.util.Objects;

/**
 * One job of a bulk enqueue: its args and options.
 *
 * @param args the args; the kind comes from their class
 * @param options the options, {@link EnqueueOptions#defaults()} when built with {@link
 *     #of(JobArgs)}
 */
public record JobRequest(JobArgs args, EnqueueOptions options) {

  /** Validates that neither part is null. */
  public JobRequest {
    Objects.requireNonNull(args, "args");
    Objects.requireNonNull(options, "options");
  }

  /** A request with default options. */
  public static JobRequest of(JobArgs args) {
    return new JobRequest(args, EnqueueOptions.defaults());
  }

  /** A request with the given options. */
  public static JobRequest of(JobArgs args, EnqueueOptions options) {
    return new JobRequest(args, options);
  }
}
