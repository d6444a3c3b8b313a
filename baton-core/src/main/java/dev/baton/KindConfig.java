package dev.baton;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Settings of one kind of job that differ from the client's: its handler's timeout and retry
 * policy, and the queue and max attempts its jobs get when the enqueue does not name them. Each is
 * optional; an unset one falls back (see {@link BatonConfig.Builder#kind(String, KindConfig)} for
 * the order). Immutable; built with {@link #builder()}, each setter validated at once.
 *
 * <pre>{@code
 * BatonConfig.builder()
 *     .kind("send_email", KindConfig.builder().timeout(Duration.ofSeconds(30)).maxAttempts(5).build())
 * }</pre>
 *
 * <p>The timeout and the retry policy apply on the clients that handle the kind; the queue and the
 * max attempts apply where a job of the kind is enqueued, so an application that only enqueues
 * needs them in its own config (or on the args class, {@link KindSettings}).
 */
public final class KindConfig {
  private static final KindConfig NONE = new Builder().build();

  private final Duration timeout;
  private final RetryPolicy retryPolicy;
  private final Integer maxAttempts;
  private final String queue;

  private KindConfig(Builder b) {
    this.timeout = b.timeout;
    this.retryPolicy = b.retryPolicy;
    this.maxAttempts = b.maxAttempts;
    this.queue = b.queue;
  }

  /** A builder with nothing set. */
  public static Builder builder() {
    return new Builder();
  }

  /** Settings with nothing set. */
  public static KindConfig none() {
    return NONE;
  }

  /** The timeout of the kind's handler, if set. */
  public Optional<Duration> timeout() {
    return Optional.ofNullable(timeout);
  }

  /** The retry policy of the kind's failed attempts, if set. */
  public Optional<RetryPolicy> retryPolicy() {
    return Optional.ofNullable(retryPolicy);
  }

  /** The max attempts of a job of the kind whose enqueue sets none, if set. */
  public OptionalInt maxAttempts() {
    return maxAttempts == null ? OptionalInt.empty() : OptionalInt.of(maxAttempts);
  }

  /** The queue of a job of the kind whose enqueue names none, if set. */
  public Optional<String> queue() {
    return Optional.ofNullable(queue);
  }

  /** Whether nothing is set. */
  public boolean isEmpty() {
    return timeout == null && retryPolicy == null && maxAttempts == null && queue == null;
  }

  /** These settings, each one that {@code over} sets replaced by that one. */
  public KindConfig overriddenBy(KindConfig over) {
    Objects.requireNonNull(over, "over");
    Builder b = new Builder();
    b.timeout = over.timeout != null ? over.timeout : timeout;
    b.retryPolicy = over.retryPolicy != null ? over.retryPolicy : retryPolicy;
    b.maxAttempts = over.maxAttempts != null ? over.maxAttempts : maxAttempts;
    b.queue = over.queue != null ? over.queue : queue;
    return new KindConfig(b);
  }

  /**
   * The settings of {@link KindSettings} on {@code type}, or {@link #none()} when it has none.
   *
   * @throws InvalidConfigException naming the class and the element, for a value that cannot be
   *     read or is out of range
   */
  static KindConfig of(Class<?> type) {
    KindSettings a = type.getAnnotation(KindSettings.class);
    if (a == null) {
      return NONE;
    }
    String where = "@KindSettings on " + type.getName() + ": ";
    Builder b = new Builder();
    try {
      if (!a.timeout().isEmpty()) {
        b.timeout(duration(where + "timeout", a.timeout()));
      }
      if (a.maxAttempts() != 0) {
        b.maxAttempts(a.maxAttempts());
      }
      if (!a.queue().isEmpty()) {
        b.queue(a.queue());
      }
    } catch (InvalidConfigException e) {
      throw new InvalidConfigException(where + e.property(), e.expected(), e.received());
    }
    if (!a.retryBase().isEmpty() || !a.retryCap().isEmpty()) {
      Duration base =
          a.retryBase().isEmpty()
              ? RetryPolicy.DEFAULT_BASE
              : duration(where + "retryBase", a.retryBase());
      Duration cap =
          a.retryCap().isEmpty()
              ? RetryPolicy.DEFAULT_CAP
              : duration(where + "retryCap", a.retryCap());
      if (base.isZero() || base.isNegative() || cap.compareTo(base) < 0) {
        throw new InvalidConfigException(
            where + "retryBase and retryCap", "0 < retryBase <= retryCap", base + ", " + cap);
      }
      b.retryPolicy(RetryPolicy.exponential(base, cap));
    }
    return b.build();
  }

  private static final Pattern SHORT_DURATION = Pattern.compile("(\\d{1,12})(ms|s|m|h|d)");

  /** {@code 30s}, {@code 500ms}, {@code 2h}, or ISO-8601 such as {@code PT30S}. */
  static Duration duration(String property, String text) {
    Matcher m = SHORT_DURATION.matcher(text.strip());
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      switch (m.group(2)) {
        case "ms":
          return Duration.ofMillis(n);
        case "s":
          return Duration.ofSeconds(n);
        case "m":
          return Duration.ofMinutes(n);
        case "h":
          return Duration.ofHours(n);
        default:
          return Duration.ofDays(n);
      }
    }
    try {
      return Duration.parse(text.strip());
    } catch (DateTimeParseException e) {
      throw new InvalidConfigException(
          property, "a duration such as 30s, 500ms, 2h or PT30S", text);
    }
  }

  @Override
  public String toString() {
    return "KindConfig[timeout="
        + timeout
        + ", retryPolicy="
        + (retryPolicy == null ? null : "set")
        + ", maxAttempts="
        + maxAttempts
        + ", queue="
        + queue
        + "]";
  }

  /** Builds a {@link KindConfig}; each setter rejects a bad value at once. Not thread-safe. */
  public static final class Builder {
    private Duration timeout;
    private RetryPolicy retryPolicy;
    private Integer maxAttempts;
    private String queue;

    private Builder() {}

    /**
     * The timeout of the kind's handler, range 10 ms..7 days, instead of {@link
     * BatonConfig#jobTimeout()}.
     */
    public Builder timeout(Duration timeout) {
      if (timeout == null
          || timeout.compareTo(Duration.ofMillis(10)) < 0
          || timeout.compareTo(Duration.ofDays(7)) > 0) {
        throw new InvalidConfigException("timeout", "between PT0.01S and PT168H", timeout);
      }
      this.timeout = timeout;
      return this;
    }

    /**
     * The retry policy of the kind's failed attempts, instead of {@link BatonConfig#retryPolicy()}.
     */
    public Builder retryPolicy(RetryPolicy policy) {
      this.retryPolicy = Objects.requireNonNull(policy, "retryPolicy");
      return this;
    }

    /**
     * Attempts before a failure discards a job of the kind, 1..1000, when its enqueue sets none,
     * instead of {@link EnqueueOptions#DEFAULT_MAX_ATTEMPTS}.
     */
    public Builder maxAttempts(int maxAttempts) {
      if (maxAttempts < 1 || maxAttempts > 1000) {
        throw new InvalidConfigException("maxAttempts", "1..1000", maxAttempts);
      }
      this.maxAttempts = maxAttempts;
      return this;
    }

    /**
     * The queue of a job of the kind when its enqueue names none, instead of {@link
     * EnqueueOptions#DEFAULT_QUEUE}.
     */
    public Builder queue(String queue) {
      if (!QueueConfig.isValidName(queue)) {
        throw new InvalidConfigException(
            "queue",
            "1-64 characters of letters, digits and _ - ., starting with a letter or digit",
            queue);
      }
      this.queue = queue;
      return this;
    }

    /** Builds the settings. */
    public KindConfig build() {
      return new KindConfig(this);
    }
  }
}
