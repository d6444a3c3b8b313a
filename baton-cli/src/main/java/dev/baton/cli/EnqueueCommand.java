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
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Locale;
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
    EnqueueResult result = root().admin().enqueue(kind, json, b.build());
    Job job = result.job();
    if (json()) {
      ObjectNode o = Output.object();
      o.put("existing", result.existing());
      o.set("job", Output.job(job));
      Output.printJson(out(), o);
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
          "invalid " + name + ": " + m.replaceFirst("^invalid enqueue option: ", ""));
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
