package dev.baton;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * How one job is enqueued: its queue, priority, run-at time, max attempts, idempotency key,
 * metadata and uniqueness. Immutable; built with {@link #builder()}, each setter validated at once.
 */
public final class EnqueueOptions {

  /** Queue used when none is set: {@code default}. */
  public static final String DEFAULT_QUEUE = "default";

  /** Priority used when none is set: 0, the highest. Range 0..9, lower runs first. */
  public static final int DEFAULT_PRIORITY = 0;

  /** Max attempts used when none is set: 20. Range 1..1000. */
  public static final int DEFAULT_MAX_ATTEMPTS = 20;

  /** Earliest run-at time accepted: PostgreSQL's earliest time, 4714-11-24 BC, midnight UTC. */
  public static final Instant MIN_RUN_AT = Instant.parse("-4713-11-24T00:00:00Z");

  /**
   * Latest run-at time accepted: the end of the year 294246, UTC. PostgreSQL stores times up to the
   * year 294276; a job's times are read as microseconds since 1970 in a 64-bit integer, which ends
   * in January 294247.
   */
  public static final Instant MAX_RUN_AT = Instant.parse("+294246-12-31T23:59:59.999999Z");

  /** Longest idempotency key accepted: 255 characters. */
  public static final int MAX_IDEMPOTENCY_KEY_LENGTH = 255;

  private static final EnqueueOptions DEFAULTS = new Builder().build();

  private final String queue;
  private final int priority;
  private final Instant runAt;
  private final int maxAttempts;
  private final String idempotencyKey;
  private final Map<String, Object> metadata;
  private final UniqueOptions unique;
  private final boolean queueSet; // whether the caller named the queue, not left the default
  private final boolean maxAttemptsSet;

  private EnqueueOptions(Builder b) {
    this.queue = b.queue;
    this.priority = b.priority;
    this.runAt = b.runAt;
    this.maxAttempts = b.maxAttempts;
    this.idempotencyKey = b.idempotencyKey;
    this.metadata = Collections.unmodifiableMap(new LinkedHashMap<>(b.metadata));
    this.unique = b.unique;
    this.queueSet = b.queueSet;
    this.maxAttemptsSet = b.maxAttemptsSet;
  }

  /** The defaults: queue {@code default}, priority 0, now, 20 attempts, no key, no metadata. */
  public static EnqueueOptions defaults() {
    return DEFAULTS;
  }

  /** A builder starting from the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** The queue. */
  public String queue() {
    return queue;
  }

  /** The priority, 0..9, lower runs first. */
  public int priority() {
    return priority;
  }

  /** When the job may first run; null means now. */
  public Instant runAt() {
    return runAt;
  }

  /** Attempts before a failure discards the job. */
  public int maxAttempts() {
    return maxAttempts;
  }

  /** The idempotency key, or null. */
  public String idempotencyKey() {
    return idempotencyKey;
  }

  /** Metadata stored with the job (a JSON object). */
  public Map<String, Object> metadata() {
    return metadata;
  }

  /** What makes the job unique ({@link UniqueOptions}), or null: not unique. */
  public UniqueOptions unique() {
    return unique;
  }

  /**
   * These options with {@code entries} added to the metadata, each only where the metadata has no
   * entry of that key: what an interceptor adds never overrides what the caller set.
   */
  EnqueueOptions withMetadataDefaults(Map<String, ?> entries) {
    if (entries.isEmpty()) {
      return this;
    }
    Builder b = copy();
    b.metadata.clear();
    entries.forEach(b::metadata);
    b.metadata.putAll(metadata);
    return new EnqueueOptions(b);
  }

  /**
   * These options with the queue and max attempts of a kind's settings where the caller set none:
   * {@code queue} and {@code maxAttempts} are the kind's (null for none).
   */
  EnqueueOptions withKindDefaults(String queue, Integer maxAttempts) {
    boolean q = queue != null && !queueSet;
    boolean m = maxAttempts != null && !maxAttemptsSet;
    if (!q && !m) {
      return this;
    }
    Builder b = copy();
    if (q) {
      b.queue = queue;
    }
    if (m) {
      b.maxAttempts = maxAttempts;
    }
    return new EnqueueOptions(b);
  }

  private Builder copy() {
    Builder b = new Builder();
    b.queue = queue;
    b.queueSet = queueSet;
    b.priority = priority;
    b.runAt = runAt;
    b.maxAttempts = maxAttempts;
    b.maxAttemptsSet = maxAttemptsSet;
    b.idempotencyKey = idempotencyKey;
    b.metadata.putAll(metadata);
    b.unique = unique;
    return b;
  }

  /** Builds {@link EnqueueOptions}; each setter rejects a bad value at once. */
  public static final class Builder {
    private String queue = DEFAULT_QUEUE;
    private int priority = DEFAULT_PRIORITY;
    private Instant runAt;
    private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
    private String idempotencyKey;
    private final Map<String, Object> metadata = new LinkedHashMap<>();
    private UniqueOptions unique;
    private boolean queueSet;
    private boolean maxAttemptsSet;

    private Builder() {}

    /**
     * The queue; default: the kind's ({@link KindConfig#queue()}), else {@value
     * EnqueueOptions#DEFAULT_QUEUE}.
     *
     * @throws InvalidJobException unless 1-64 characters of letters, digits and {@code _ - .},
     *     starting with a letter or digit
     */
    public Builder queue(String queue) {
      if (!QueueConfig.isValidName(queue)) {
        throw new InvalidJobException(
            "invalid enqueue option: queue must be 1-64 characters of letters, digits and _ - .,"
                + " starting with a letter or digit, got "
                + quote(queue));
      }
      this.queue = queue;
      this.queueSet = true;
      return this;
    }

    /**
     * The priority, 0..9; lower runs first; default {@value EnqueueOptions#DEFAULT_PRIORITY}.
     *
     * @throws InvalidJobException outside 0..9
     */
    public Builder priority(int priority) {
      if (priority < 0 || priority > 9) {
        throw new InvalidJobException(
            "invalid enqueue option: priority must be 0..9 (lower runs first), got " + priority);
      }
      this.priority = priority;
      return this;
    }

    /**
     * When the job may first run; null or a past time means now.
     *
     * @throws InvalidJobException before {@link #MIN_RUN_AT} or after {@link #MAX_RUN_AT}, times
     *     PostgreSQL cannot store
     */
    public Builder runAt(Instant runAt) {
      if (runAt != null && (runAt.isBefore(MIN_RUN_AT) || runAt.isAfter(MAX_RUN_AT))) {
        throw new InvalidJobException(
            "invalid enqueue option: runAt must be between "
                + MIN_RUN_AT
                + " and "
                + MAX_RUN_AT
                + " (the times PostgreSQL stores), got "
                + runAt);
      }
      this.runAt = runAt;
      return this;
    }

    /**
     * Attempts before a failure discards the job, 1..1000; default: the kind's ({@link
     * KindConfig#maxAttempts()}), else {@value EnqueueOptions#DEFAULT_MAX_ATTEMPTS}.
     *
     * @throws InvalidJobException outside 1..1000
     */
    public Builder maxAttempts(int maxAttempts) {
      if (maxAttempts < 1 || maxAttempts > 1000) {
        throw new InvalidJobException(
            "invalid enqueue option: maxAttempts must be 1..1000, got " + maxAttempts);
      }
      this.maxAttempts = maxAttempts;
      this.maxAttemptsSet = true;
      return this;
    }

    /**
     * The idempotency key: a second enqueue with the same key, while the first job is still in the
     * table (any state, until retention removes it), returns the first job instead of inserting.
     * Null for none.
     *
     * @throws InvalidJobException if empty, blank or longer than 255 characters
     */
    public Builder idempotencyKey(String key) {
      if (key != null && (key.isBlank() || key.length() > MAX_IDEMPOTENCY_KEY_LENGTH)) {
        throw new InvalidJobException(
            "invalid enqueue option: idempotencyKey must be 1-255 characters and not blank, got "
                + (key.length() > 40 ? key.length() + " characters" : quote(key)));
      }
      this.idempotencyKey = key;
      return this;
    }

    /** Adds one metadata entry; the value must be JSON-serialisable. */
    public Builder metadata(String key, Object value) {
      Objects.requireNonNull(key, "metadata key");
      metadata.put(key, value);
      return this;
    }

    /** Adds all entries of {@code entries} to the metadata. */
    public Builder metadata(Map<String, ?> entries) {
      entries.forEach(this::metadata);
      return this;
    }

    /**
     * Makes the job unique ({@link UniqueOptions}): while a job with its key is in one of the
     * states it is unique in, the enqueue inserts nothing and returns that job (see
     * docs/unique-jobs.md). Null for none, the default; an enqueue without uniqueness runs the same
     * statements as before uniqueness existed.
     */
    public Builder unique(UniqueOptions unique) {
      this.unique = unique;
      return this;
    }

    /**
     * Builds the options.
     *
     * @throws InvalidJobException if a debounce is combined with a run time, or an idempotency key
     *     with a replace or debounce of a unique job
     */
    public EnqueueOptions build() {
      if (unique != null && unique.debounce() != null && runAt != null) {
        throw new InvalidJobException(
            "invalid unique option: debounce sets the run time; do not also set a run time or"
                + " replace it");
      }
      if (unique != null && unique.changesWaitingJob() && idempotencyKey != null) {
        throw new InvalidJobException(
            "invalid enqueue option: an idempotency key cannot be combined with replace or"
                + " debounce; use one or the other");
      }
      return new EnqueueOptions(this);
    }

    private static String quote(String s) {
      return s == null ? "null" : "\"" + s + "\"";
    }
  }
}
