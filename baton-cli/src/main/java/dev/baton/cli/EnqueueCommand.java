package dev.baton.cli;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.EnqueueOptions;
import dev.baton.EnqueueResult;
import dev.baton.InvalidJobException;
import dev.baton.Job;
import dev.baton.JobArgs;
import dev.baton.JobState;
import dev.baton.UniqueOptions;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code baton enqueue}: one job, by kind name and JSON args. */
@Command(
    name = "enqueue",
    mixinStandardHelpOptions = true,
    description = {
      "Enqueue one job. Any valid kind is accepted, whether or not this command knows it: the"
          + " workers that handle the kind run it.",
      "Example: baton enqueue --kind send_email --args '{\"orderId\": 42}' --queue mail"
    })
final class EnqueueCommand extends BaseCommand implements Callable<Integer> {
  // Numbers are kept as written: a decimal as a BigDecimal (a double would round
  // 9007199254740993.5 and make 1e400 Infinity), trailing zeros included.
  private static final ObjectMapper STRICT =
      JsonMapper.builder()
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
          .build();

  @Option(
      names = "--kind",
      required = true,
      paramLabel = "KIND",
      description = "The job's kind (selects the handler): 1-128 of A-Z a-z 0-9 _ . : - /")
  String kind;

  @Option(
      names = "--args",
      required = true,
      paramLabel = "JSON",
      description = "The job's args, a JSON object, e.g. '{\"orderId\": 42}'")
  String args;

  @Option(
      names = "--queue",
      paramLabel = "QUEUE",
      defaultValue = EnqueueOptions.DEFAULT_QUEUE,
      description = "Queue (default: ${DEFAULT-VALUE})")
  String queue;

  @Option(
      names = "--priority",
      paramLabel = "N",
      defaultValue = "" + EnqueueOptions.DEFAULT_PRIORITY,
      description = "Priority 0..9, lower runs first (default: ${DEFAULT-VALUE})")
  int priority;

  @Option(
      names = "--run-at",
      paramLabel = "ISO-8601",
      converter = InstantConverter.class,
      description = "When it may first run, e.g. 2030-01-01T09:00:00Z (default: now)")
  Instant runAt;

  @Option(
      names = "--idempotency-key",
      paramLabel = "KEY",
      description = "Unique key: while a job holds it, enqueueing it again returns that job")
  String idempotencyKey;

  @Option(
      names = "--max-attempts",
      paramLabel = "N",
      defaultValue = "" + EnqueueOptions.DEFAULT_MAX_ATTEMPTS,
      description =
          "Attempts before a failure discards the job, 1..1000 (default: ${DEFAULT-VALUE})")
  int maxAttempts;

  @Option(
      names = "--unique-by",
      paramLabel = "args|fields|kind",
      description =
          "Make the job unique by its kind and its args (all of them, the --unique-fields, or"
              + " none): while a job holds that key, enqueueing it again returns that job")
  String uniqueBy;

  @Option(
      names = "--unique-fields",
      paramLabel = "FIELD",
      split = ",",
      description = "The args' top-level fields in the unique key, for --unique-by fields")
  String[] uniqueFields;

  @Option(
      names = "--unique-per-queue",
      description = "The queue is part of the unique key (the same job in two queues is two)")
  boolean uniquePerQueue;

  @Option(
      names = "--unique-period",
      paramLabel = "ISO-8601",
      converter = DurationConverter.class,
      description = "Unique within buckets of this length of the run time, e.g. PT1H")
  Duration uniquePeriod;

  @Option(
      names = "--unique-states",
      paramLabel = "STATE",
      split = ",",
      description =
          "States the unique key is held in: scheduled, available, running, retryable and any of"
              + " completed, cancelled, discarded (default: the first four)")
  String[] uniqueStates;

  @Option(
      names = "--replace",
      paramLabel = "args|metadata|priority|run_at",
      split = ",",
      description = "Values a repeated unique enqueue replaces in the job while it waits")
  String[] replace;

  @Option(
      names = "--debounce",
      paramLabel = "ISO-8601",
      converter = DurationConverter.class,
      description = "A repeated unique enqueue pushes the waiting job's run time to now + this")
  Duration debounce;

  @Option(
      names = "--debounce-max-wait",
      paramLabel = "ISO-8601",
      converter = DurationConverter.class,
      description = "Never debounce past this long after the job was first enqueued")
  Duration debounceMaxWait;

  @Override
  public Integer call() {
    if (!JobArgs.isValidKind(kind)) {
      throw new UsageException(
          "invalid --kind: expected 1-128 characters of letters, digits and _ . : - /, got '"
              + kind
              + "'");
    }
    JsonNode json = parseArgs(args);
    EnqueueOptions.Builder b = EnqueueOptions.builder();
    option("--queue", () -> b.queue(queue));
    option("--priority", () -> b.priority(priority));
    option("--max-attempts", () -> b.maxAttempts(maxAttempts));
    option("--idempotency-key", () -> b.idempotencyKey(idempotencyKey));
    option("--run-at", () -> b.runAt(runAt));
    option("--unique-by", () -> b.unique(unique()));
    EnqueueOptions options;
    try {
      options = b.build();
    } catch (InvalidJobException e) {
      throw new UsageException(e.getMessage().replaceFirst("^invalid [a-z]+ option: ", ""));
    }
    EnqueueResult result = root().admin().enqueue(kind, json, options);
    Job job = result.job();
    if (json()) {
      ObjectNode o = Output.object();
      o.put("existing", result.existing());
      o.put("updated", result.updated());
      o.set("job", Output.job(job));
      Output.printJson(out(), o);
    } else if (result.updated()) {
      out()
          .println(
              "job "
                  + job.id()
                  + " holds the unique key and was waiting: updated it (kind="
                  + job.kind()
                  + ", state="
                  + job.state().dbName()
                  + ", scheduled_at="
                  + Output.time(job.scheduledAt())
                  + ")");
    } else if (result.existing()
        && (idempotencyKey == null || !idempotencyKey.equals(job.idempotencyKey()))) {
      out()
          .println(
              "job "
                  + job.id()
                  + " already holds the unique key (kind="
                  + job.kind()
                  + ", state="
                  + job.state().dbName()
                  + "); nothing enqueued");
    } else if (result.existing()) {
      out()
          .println(
              "job "
                  + job.id()
                  + " already holds idempotency key '"
                  + job.idempotencyKey()
                  + "' (kind="
                  + job.kind()
                  + ", state="
                  + job.state().dbName()
                  + "); nothing enqueued");
    } else {
      out()
          .println(
              "enqueued job "
                  + job.id()
                  + " (kind="
                  + job.kind()
                  + ", queue="
                  + job.queue()
                  + ", state="
                  + job.state().dbName()
                  + ", scheduled_at="
                  + Output.time(job.scheduledAt())
                  + ")");
    }
    return BatonCli.OK;
  }

  /** The unique options the flags ask for, or null when {@code --unique-by} is not given. */
  private UniqueOptions unique() {
    if (uniqueBy == null) {
      if (uniqueFields != null
          || uniquePerQueue
          || uniquePeriod != null
          || uniqueStates != null
          || replace != null
          || debounce != null
          || debounceMaxWait != null) {
        throw new UsageException(
            "--unique-fields, --unique-per-queue, --unique-period, --unique-states, --replace and"
                + " --debounce apply to a unique job; add --unique-by args, fields or kind");
      }
      return null;
    }
    UniqueOptions.Builder u =
        switch (uniqueBy) {
          case "args" -> UniqueOptions.byArgs();
          case "kind" -> UniqueOptions.byKind();
          case "fields" -> UniqueOptions.byFields(uniqueFields);
          default ->
              throw new UsageException(
                  "invalid --unique-by: expected args, fields or kind, got '" + uniqueBy + "'");
        };
    if (uniqueFields != null && !"fields".equals(uniqueBy)) {
      throw new UsageException("--unique-fields applies to --unique-by fields only");
    }
    if (uniquePerQueue) {
      u.perQueue();
    }
    if (uniquePeriod != null) {
      u.period(uniquePeriod);
    }
    if (uniqueStates != null) {
      Set<JobState> states = EnumSet.noneOf(JobState.class);
      for (String st : uniqueStates) {
        states.add(parse(JobState.class, "--unique-states", st));
      }
      u.states(states);
    }
    if (replace != null) {
      for (String r : replace) {
        u.replace(parse(UniqueOptions.Replace.class, "--replace", r));
      }
    }
    if (debounceMaxWait != null) {
      if (debounce == null) {
        throw new UsageException("--debounce-max-wait needs --debounce");
      }
      u.debounce(debounce, debounceMaxWait);
    } else if (debounce != null) {
      u.debounce(debounce);
    }
    return u.build();
  }

  private static <E extends Enum<E>> E parse(Class<E> type, String flag, String value) {
    for (E e : type.getEnumConstants()) {
      if (e.name().equalsIgnoreCase(value.strip())) {
        return e;
      }
    }
    throw new UsageException(
        "invalid "
            + flag
            + ": expected one of "
            + java.util.Arrays.stream(type.getEnumConstants())
                .map(e -> e.name().toLowerCase(Locale.ROOT))
                .toList()
            + ", got '"
            + value
            + "'");
  }

  /** {@code text} parsed as a JSON object, or a usage error saying where it went wrong. */
  static JsonNode parseArgs(String text) {
    JsonNode node;
    try {
      node = STRICT.readTree(text);
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      throw new UsageException(
          "--args is not valid JSON: "
              + e.getOriginalMessage().lines().findFirst().orElse("")
              + (at != null ? " at column " + at.getColumnNr() : "")
              + "; pass a JSON object in single quotes, e.g. --args '{\"orderId\": 42}'");
    }
    if (node == null || node.isMissingNode()) {
      throw new UsageException(
          "--args is empty; pass a JSON object, e.g. --args '{}' or --args '{\"orderId\": 42}'");
    }
    if (!node.isObject()) {
      throw new UsageException(
          "--args must be a JSON object, got "
              + node.getNodeType().name().toLowerCase(Locale.ROOT)
              + " "
              + abbreviate(node.toString())
              + "; e.g. --args '{\"orderId\": 42}'");
    }
    return node;
  }

  private static String abbreviate(String s) {
    return s.length() > 40 ? s.substring(0, 37) + "..." : s;
  }

  private static void option(String name, Runnable set) {
    try {
      set.run();
    } catch (InvalidJobException e) {
      String m = e.getMessage();
      throw new UsageException(
          "invalid " + name + ": " + m.replaceFirst("^invalid [a-z]+ option: ", ""));
    }
  }

  /** An ISO-8601 duration: {@code PT30S}, {@code PT1H}, {@code P1D}. */
  static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      try {
        return Duration.parse(value);
      } catch (DateTimeParseException e) {
        throw new CommandLine.TypeConversionException(
            "'" + value + "' is not an ISO-8601 duration; e.g. PT30S, PT5M, PT1H or P1D");
      }
    }
  }

  /** ISO-8601 with an offset: {@code 2030-01-01T09:00:00Z} or {@code ...T10:00:00+01:00}. */
  static final class InstantConverter implements CommandLine.ITypeConverter<Instant> {
    @Override
    public Instant convert(String value) {
      try {
        return OffsetDateTime.parse(value).toInstant();
      } catch (DateTimeParseException e) {
        throw new CommandLine.TypeConversionException(
            "'"
                + value
                + "' is not an ISO-8601 time with an offset; e.g. 2030-01-01T09:00:00Z or"
                + " 2030-01-01T10:00:00+01:00");
      }
    }
  }
}
