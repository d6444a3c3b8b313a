package dev.baton;

import java.time.Duration;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What makes a job unique, and what a second enqueue of it does while the first still waits. Set on
 * {@link EnqueueOptions.Builder#unique(UniqueOptions)}; immutable, built from {@link #byArgs()},
 * {@link #byFields(String...)} or {@link #byKind()}, each setter validated at once.
 *
 * <p>A unique job holds a key made of its kind and its args (all of them, the named fields, or
 * none), optionally its queue and the period bucket its run time falls in. The database holds at
 * most one job per key among the states the job is unique in ({@link #states()}, by default every
 * state but {@code completed}, {@code cancelled} and {@code discarded}), also under concurrent,
 * bulk and {@code COPY} enqueues: a second enqueue inserts nothing and returns the job holding the
 * key with {@link EnqueueResult#existing()} true. Args that differ only in the order of their
 * fields or in insignificant whitespace are the same args. The key is computed by one SQL function
 * of the schema, the same one {@code baton.enqueue(...)} uses from SQL. See docs/unique-jobs.md.
 *
 * <p>While the job holding the key waits ({@code scheduled}, {@code available} or {@code
 * retryable}), a second enqueue keeps it as it is (the default), replaces some of its values
 * ({@link Builder#replace(Replace...)}), or pushes its run time out ({@link
 * Builder#debounce(Duration, Duration)}). A running or finished job is never changed.
 */
public final class UniqueOptions {

  /** Shortest period accepted: one second. */
  public static final Duration MIN_PERIOD = Duration.ofSeconds(1);

  /** The states a unique job always holds its key in: every state a job can move back into. */
  public static final Set<JobState> HOLDING_STATES =
      Collections.unmodifiableSet(
          EnumSet.of(JobState.SCHEDULED, JobState.AVAILABLE, JobState.RUNNING, JobState.RETRYABLE));

  /** What a unique job's key is made of besides its kind. */
  public enum By {
    /** All of the args. */
    ARGS,
    /** The named top-level fields of the args ({@link UniqueOptions#fields()}). */
    FIELDS,
    /** None of the args: one job per kind (and queue and period, if set). */
    KIND;

    String dbName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** A value of a waiting job that a second enqueue of it replaces. */
  public enum Replace {
    /** The args (with {@link By#FIELDS}, the fields outside the key). */
    ARGS,
    /** The metadata. */
    METADATA,
    /** The priority. */
    PRIORITY,
    /** The run time ({@link EnqueueOptions#runAt()}; now when none is set). */
    RUN_AT;

    /** The name {@code baton.enqueue(replace => ...)} takes: {@code args}, {@code run_at}, ... */
    public String dbName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final By by;
  private final List<String> fields;
  private final boolean perQueue;
  private final Duration period;
  private final Set<JobState> states;
  private final Set<Replace> replace;
  private final Duration debounce;
  private final Duration maxWait;

  private UniqueOptions(Builder b) {
    this.by = b.by;
    this.fields = List.copyOf(b.fields);
    this.perQueue = b.perQueue;
    this.period = b.period;
    this.states = Collections.unmodifiableSet(EnumSet.copyOf(b.states));
    this.replace =
        b.replace.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(b.replace));
    this.debounce = b.debounce;
    this.maxWait = b.maxWait;
  }

  /** Unique by kind and all of the args. */
  public static Builder byArgs() {
    return new Builder(By.ARGS, List.of());
  }

  /**
   * Unique by kind and the named top-level fields of the args; a field the args lack is left out of
   * the key.
   *
   * @throws InvalidJobException if no field is named, or a name is null or blank
   */
  public static Builder byFields(String... fields) {
    if (fields == null
        || fields.length == 0
        || java.util.Arrays.stream(fields).anyMatch(f -> f == null || f.isBlank())) {
      throw new InvalidJobException(
          "invalid unique option: fields must be named, not blank, for a job unique by fields,"
              + " got "
              + (fields == null ? "null" : java.util.Arrays.toString(fields)));
    }
    List<String> names = List.of(fields);
    return new Builder(By.FIELDS, names);
  }

  /** Unique by kind alone: at most one job of the kind (per queue and period, if set). */
  public static Builder byKind() {
    return new Builder(By.KIND, List.of());
  }

  /** What the key is made of besides the kind. */
  public By by() {
    return by;
  }

  /** The fields of the args in the key, for {@link By#FIELDS}; else empty. */
  public List<String> fields() {
    return fields;
  }

  /** Whether the queue is part of the key (unique per queue), else unique across queues. */
  public boolean perQueue() {
    return perQueue;
  }

  /** The length of the period buckets the key holds, or null for none (unique at any time). */
  public Duration period() {
    return period;
  }

  /** The states in which the job holds its key: {@link #HOLDING_STATES} and the chosen others. */
  public Set<JobState> states() {
    return states;
  }

  /** The values a second enqueue replaces in the waiting job holding the key; empty for none. */
  public Set<Replace> replace() {
    return replace;
  }

  /** How far a second enqueue pushes the waiting job's run time out from now, or null. */
  public Duration debounce() {
    return debounce;
  }

  /** The latest run time a debounce sets, counted from the job's creation, or null for none. */
  public Duration maxWait() {
    return maxWait;
  }

  /** Whether a second enqueue changes a waiting job holding the key (replace or debounce). */
  public boolean changesWaitingJob() {
    return !replace.isEmpty() || debounce != null;
  }

  @Override
  public String toString() {
    return "UniqueOptions[by="
        + by
        + (fields.isEmpty() ? "" : ", fields=" + fields)
        + (perQueue ? ", perQueue" : "")
        + (period == null ? "" : ", period=" + period)
        + ", states="
        + states
        + (replace.isEmpty() ? "" : ", replace=" + replace)
        + (debounce == null ? "" : ", debounce=" + debounce)
        + (maxWait == null ? "" : ", maxWait=" + maxWait)
        + "]";
  }

  /** Builds {@link UniqueOptions}; each setter rejects a bad value at once. */
  public static final class Builder {
    private final By by;
    private final List<String> fields;
    private boolean perQueue;
    private Duration period;
    private final Set<JobState> states = EnumSet.copyOf(HOLDING_STATES);
    private final Set<Replace> replace = EnumSet.noneOf(Replace.class);
    private Duration debounce;
    private Duration maxWait;

    private Builder(By by, List<String> fields) {
      this.by = by;
      this.fields = fields;
    }

    /** Makes the queue part of the key: the same job in two queues is two jobs. */
    public Builder perQueue() {
      this.perQueue = true;
      return this;
    }

    /**
     * Unique within a period: the key holds the number of the bucket of this length (counted from
     * 1970-01-01T00:00Z) that the job's run time falls in, so one job per bucket.
     *
     * @throws InvalidJobException if shorter than {@link #MIN_PERIOD}
     */
    public Builder period(Duration period) {
      if (period == null || period.compareTo(MIN_PERIOD) < 0) {
        throw new InvalidJobException(
            "invalid unique option: period must be at least 1 second, got " + period);
      }
      this.period = period;
      return this;
    }

    /**
     * The states the job holds its key in: {@link #HOLDING_STATES} always, plus any of {@code
     * completed}, {@code cancelled} and {@code discarded} (then a finished job blocks a new one
     * until retention deletes it).
     *
     * @throws InvalidJobException if {@code states} lacks one of {@link #HOLDING_STATES}
     */
    public Builder states(Set<JobState> states) {
      if (states == null || !states.containsAll(HOLDING_STATES)) {
        throw new InvalidJobException(
            "invalid unique option: states must hold scheduled, available, running and retryable"
                + " (states a job moves back into), and may add completed, cancelled or discarded,"
                + " got "
                + (states == null
                    ? "null"
                    : states.stream().map(JobState::dbName).collect(Collectors.joining(", "))));
      }
      this.states.clear();
      this.states.addAll(states);
      return this;
    }

    /**
     * Values that a second enqueue replaces in the job holding the key while it waits; a running or
     * finished job is left as it is.
     */
    public Builder replace(Replace... values) {
      replace.addAll(java.util.Arrays.asList(values));
      return this;
    }

    /**
     * Debounces the job: it runs {@code delay} after the latest enqueue of its key, as long as it
     * still waits. Without a maximum wait, a steady stream of enqueues can put it off for ever.
     *
     * @throws InvalidJobException if {@code delay} is not positive
     */
    public Builder debounce(Duration delay) {
      if (delay == null || delay.isNegative() || delay.isZero()) {
        throw new InvalidJobException(
            "invalid unique option: debounce must be positive, got " + delay);
      }
      this.debounce = delay;
      return this;
    }

    /**
     * Debounces the job ({@link #debounce(Duration)}), but never past {@code maxWait} after the job
     * was first enqueued.
     *
     * @throws InvalidJobException if {@code delay} is not positive or {@code maxWait} is shorter
     */
    public Builder debounce(Duration delay, Duration maxWait) {
      debounce(delay);
      if (maxWait == null || maxWait.compareTo(delay) < 0) {
        throw new InvalidJobException(
            "invalid unique option: a maximum wait needs a debounce no longer than it, got "
                + maxWait
                + " for debounce "
                + delay);
      }
      this.maxWait = maxWait;
      return this;
    }

    /**
     * Builds the options.
     *
     * @throws InvalidJobException if both a debounce and the replacement of the run time are set
     */
    public UniqueOptions build() {
      if (debounce != null && replace.contains(Replace.RUN_AT)) {
        throw new InvalidJobException(
            "invalid unique option: debounce sets the run time; do not also set a run time or"
                + " replace it");
      }
      return new UniqueOptions(this);
    }
  }
}
