package dev.baton;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Objects;
import java.util.Optional;

/**
 * A job enqueued on a cron schedule by the cluster's leader. Register the same periodic jobs on
 * every node that may lead ({@link Baton.Builder#periodic}); whichever node leads enqueues each
 * run, with the idempotency key {@code baton:periodic:<name>:<due time>}, so a leader change never
 * fires a run twice.
 *
 * <p>The schedule is a cron expression of five fields ({@code minute hour day-of-month month
 * day-of-week}, as in crontab) or six (a leading {@code second} field), evaluated in {@link
 * #zone()} (default UTC). Immutable.
 */
public final class PeriodicJob {

  /** Due times at most this late run normally; older ones are missed. Default 1 minute. */
  public static final Duration DEFAULT_LATE_TOLERANCE = Duration.ofMinutes(1);

  private static final CronParser UNIX =
      new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));
  private static final CronParser WITH_SECONDS =
      new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.SPRING));

  private final String name;
  private final String expression;
  private final Cron cron;
  private final JobArgs args;
  private final EnqueueOptions options;
  private final ZoneId zone;
  private final MissedRuns missedRuns;
  private final Duration lateTolerance;

  private PeriodicJob(
      String name,
      String expression,
      Cron cron,
      JobArgs args,
      EnqueueOptions options,
      Timing timing) {
    this.name = name;
    this.expression = expression;
    this.cron = cron;
    this.args = args;
    this.options = options;
    this.zone = timing.zone();
    this.missedRuns = timing.missedRuns();
    this.lateTolerance = timing.lateTolerance();
  }

  /** When due times are evaluated and how late or missed ones are treated. */
  private record Timing(ZoneId zone, MissedRuns missedRuns, Duration lateTolerance) {}

  /**
   * A periodic job {@code name} that enqueues {@code args} on {@code cron}, with default options,
   * in UTC, catching up once on missed runs.
   *
   * @param name unique per cluster: letters, digits, {@code _ - . :}, 1 to 100 characters
   * @throws InvalidConfigException if the name or the expression is not valid
   */
  public static PeriodicJob cron(String name, String cron, JobArgs args) {
    if (name == null || !name.matches("[A-Za-z0-9_.:-]{1,100}")) {
      throw new InvalidConfigException(
          "periodic job name", "1 to 100 letters, digits, '_', '-', '.', ':'", name);
    }
    Objects.requireNonNull(args, "args of periodic job " + name);
    return new PeriodicJob(
        name,
        cron,
        parse(name, cron),
        args,
        EnqueueOptions.defaults(),
        new Timing(ZoneOffset.UTC, MissedRuns.CATCH_UP_ONCE, DEFAULT_LATE_TOLERANCE));
  }

  private static Cron parse(String name, String expression) {
    String expected =
        "a cron expression of 5 fields (minute hour day-of-month month day-of-week) or 6 (with a"
            + " leading second), e.g. \"0 3 * * *\" or \"*/10 * * * * *\"";
    if (expression == null || expression.isBlank()) {
      throw new InvalidConfigException("schedule of periodic job " + name, expected, expression);
    }
    int fields = expression.trim().split("\\s+").length;
    CronParser parser = fields == 5 ? UNIX : fields == 6 ? WITH_SECONDS : null;
    if (parser == null) {
      throw new InvalidConfigException(
          "schedule of periodic job " + name, expected + "; got " + fields + " fields", expression);
    }
    try {
      return parser.parse(expression.trim()).validate();
    } catch (IllegalArgumentException e) {
      throw new InvalidConfigException(
          "schedule of periodic job " + name, expected + " (" + e.getMessage() + ")", expression);
    }
  }

  /**
   * The first due time of the cron {@code expression} (five or six fields, as {@link #cron}
   * accepts) evaluated in {@code zone} that is strictly after {@code after}; empty when the
   * expression has none.
   *
   * @throws InvalidConfigException if the expression is not valid
   */
  public static Optional<Instant> nextDue(String expression, ZoneId zone, Instant after) {
    Objects.requireNonNull(zone, "zone");
    Objects.requireNonNull(after, "after");
    return ExecutionTime.forCron(parse("(schedule)", expression))
        .nextExecution(after.atZone(zone))
        .map(ZonedDateTime::toInstant);
  }

  /** The same job with these enqueue options. Their idempotency key must be unset. */
  public PeriodicJob withOptions(EnqueueOptions options) {
    Objects.requireNonNull(options, "options");
    if (options.idempotencyKey() != null) {
      throw new InvalidConfigException(
          "idempotency key of periodic job " + name,
          "unset (each run gets baton:periodic:<name>:<due time>)",
          options.idempotencyKey());
    }
    if (options.runAt() != null) {
      throw new InvalidConfigException(
          "run-at of periodic job " + name, "unset (the schedule sets it)", options.runAt());
    }
    return new PeriodicJob(
        name, expression, cron, args, options, new Timing(zone, missedRuns, lateTolerance));
  }

  /** The same job evaluated in {@code zone}. */
  public PeriodicJob withZone(ZoneId zone) {
    return new PeriodicJob(
        name,
        expression,
        cron,
        args,
        options,
        new Timing(Objects.requireNonNull(zone, "zone"), missedRuns, lateTolerance));
  }

  /** The same job with policy {@code missed} for runs missed while no leader was up. */
  public PeriodicJob withMissedRuns(MissedRuns missed) {
    return new PeriodicJob(
        name,
        expression,
        cron,
        args,
        options,
        new Timing(zone, Objects.requireNonNull(missed, "missedRuns"), lateTolerance));
  }

  /** The same job with due times up to {@code tolerance} late running normally (1 s..1 day). */
  public PeriodicJob withLateTolerance(Duration tolerance) {
    if (tolerance == null
        || tolerance.compareTo(Duration.ofSeconds(1)) < 0
        || tolerance.compareTo(Duration.ofDays(1)) > 0) {
      throw new InvalidConfigException(
          "late tolerance of periodic job " + name, "between 1 s and 1 day", tolerance);
    }
    return new PeriodicJob(
        name, expression, cron, args, options, new Timing(zone, missedRuns, tolerance));
  }

  /** The name, unique per cluster. */
  public String name() {
    return name;
  }

  /** The cron expression as given. */
  public String expression() {
    return expression;
  }

  /** The parsed expression. */
  Cron parsed() {
    return cron;
  }

  /** The args each run is enqueued with. */
  public JobArgs args() {
    return args;
  }

  /** The options each run is enqueued with. */
  public EnqueueOptions options() {
    return options;
  }

  /** The zone the expression is evaluated in. */
  public ZoneId zone() {
    return zone;
  }

  /** The policy for runs missed while no leader was up. */
  public MissedRuns missedRuns() {
    return missedRuns;
  }

  /** How late a due time may be and still run normally. */
  public Duration lateTolerance() {
    return lateTolerance;
  }

  @Override
  public String toString() {
    return "PeriodicJob[" + name + ", \"" + expression + "\", " + zone + ", " + missedRuns + "]";
  }
}
