package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class EnqueueCliTest {
  private static CliRunner cli;

  @BeforeAll
  static void schema() {
    cli = CliRunner.onNewMigratedSchema();
  }

  @Test
  void enqueuesAKindNoHandlerKnowsWithItsArgs() {
    CliRunner.Result r =
        cli.run("enqueue", "--kind", "send_email", "--args", "{\"orderId\": 42, \"to\": \"a@b\"}");
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.out()).startsWith("enqueued job ").contains("kind=send_email, queue=default");
    long id = Long.parseLong(r.out().split(" ")[2]);
    assertThat(cli.column(id, "args::text")).isEqualTo("{\"to\": \"a@b\", \"orderId\": 42}");
    assertThat(cli.column(id, "state")).isEqualTo("available");
  }

  @Test
  void everyOptionReachesTheRow() {
    CliRunner.Result r =
        cli.run(
            "enqueue",
            "--kind",
            "report.nightly",
            "--args",
            "{}",
            "--queue",
            "reports",
            "--priority",
            "7",
            "--run-at",
            "2099-01-01T10:00:00+01:00",
            "--idempotency-key",
            "nightly:2099-01-01",
            "--max-attempts",
            "3",
            "--json");
    assertThat(r.exitCode()).as(r.err()).isZero();
    JsonNode job = r.json().path("job");
    assertThat(r.json().path("existing").asBoolean()).isFalse();
    assertThat(job.path("queue").asText()).isEqualTo("reports");
    assertThat(job.path("priority").asInt()).isEqualTo(7);
    assertThat(job.path("state").asText()).isEqualTo("scheduled");
    assertThat(job.path("scheduled_at").asText()).isEqualTo("2099-01-01T09:00:00Z");
    assertThat(job.path("idempotency_key").asText()).isEqualTo("nightly:2099-01-01");
    assertThat(job.path("max_attempts").asInt()).isEqualTo(3);

    CliRunner.Result again =
        cli.run(
            "enqueue",
            "--kind",
            "report.nightly",
            "--args",
            "{}",
            "--idempotency-key",
            "nightly:2099-01-01");
    assertThat(again.exitCode()).isZero();
    assertThat(again.out())
        .contains("job " + job.path("id").asLong() + " already holds idempotency key")
        .contains("nothing enqueued");
  }

  @Test
  void malformedJsonIsOneUsageLineSayingWhere() {
    CliRunner.Result r = cli.run("enqueue", "--kind", "k", "--args", "{orderId: 42}");
    assertThat(r.exitCode()).isEqualTo(BatonCli.USAGE);
    assertThat(r.out()).isEmpty();
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).startsWith("baton: --args is not valid JSON").contains("column 2");
  }

  @Test
  void trailingGarbageAfterTheJsonIsRejected() {
    CliRunner.Result r = cli.run("enqueue", "--kind", "k", "--args", "{} }");
    assertThat(r.exitCode()).isEqualTo(BatonCli.USAGE);
    assertThat(r.err()).contains("--args is not valid JSON");
  }

  @Test
  void argsThatAreNotAnObjectAreRejected() {
    CliRunner.Result r = cli.run("enqueue", "--kind", "k", "--args", "[1, 2]");
    assertThat(r.exitCode()).isEqualTo(BatonCli.USAGE);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).contains("--args must be a JSON object, got array");
  }

  @Test
  void badOptionValuesAreUsageErrorsNamingTheOption() {
    assertUsage(
        cli.run("enqueue", "--kind", "k", "--args", "{}", "--priority", "12"), "--priority");
    assertUsage(
        cli.run("enqueue", "--kind", "k", "--args", "{}", "--max-attempts", "0"), "--max-attempts");
    assertUsage(
        cli.run("enqueue", "--kind", "k", "--args", "{}", "--queue", "no space"), "--queue");
    assertUsage(
        cli.run("enqueue", "--kind", "k", "--args", "{}", "--run-at", "tomorrow"), "--run-at");
    assertUsage(
        cli.run("enqueue", "--kind", "k", "--args", "{}", "--run-at", "2030-01-01T10:00"),
        "--run-at");
    assertUsage(cli.run("enqueue", "--kind", "bad kind", "--args", "{}"), "--kind");
    assertUsage(cli.run("enqueue", "--args", "{}"), "--kind");
    assertUsage(
        cli.run("enqueue", "--kind", "k", "--args", "{}", "--idempotency-key", " "),
        "--idempotency-key");
    assertThat(cli.db.queryLong("SELECT count(*) FROM " + cli.schema + ".job WHERE kind = 'k'"))
        .isZero();
  }

  @Test
  void textPostgresCannotStoreAndTimesOutOfItsRangeAreUsageErrorsBeforeAnySql() {
    assertUsage(
        cli.run("enqueue", "--kind", "u", "--args", "{\"t\": \"x\\ud800y\"}"),
        "args must be valid Unicode text without NUL characters, got an unpaired surrogate \\uD800");
    assertUsage(
        cli.run("enqueue", "--kind", "u", "--args", "{\"t\": \"a\\u0000\"}"),
        "args must be valid Unicode text without NUL characters, got a NUL character (U+0000)");
    assertUsage(
        cli.run("enqueue", "--kind", "u", "--args", "{}", "--idempotency-key", "k\udc00y"),
        "idempotencyKey must be valid Unicode text");
    assertUsage(
        cli.run("enqueue", "--kind", "u", "--args", "{}", "--idempotency-key", "k\u0000"),
        "idempotencyKey must be valid Unicode text without NUL characters");
    assertUsage(
        cli.run("enqueue", "--kind", "u", "--args", "{}", "--run-at", "+294277-01-01T00:00:00Z"),
        "invalid --run-at: runAt must be between -4713-11-24T00:00:00Z and"
            + " +294246-12-31T23:59:59.999999Z (the times PostgreSQL stores), got"
            + " +294277-01-01T00:00:00Z");
    assertUsage(
        cli.run("enqueue", "--kind", "u", "--args", "{}", "--run-at", "-4714-01-01T00:00:00Z"),
        "invalid --run-at");
    assertThat(cli.db.queryLong("SELECT count(*) FROM " + cli.schema + ".job WHERE kind = 'u'"))
        .isZero();
    CliRunner.Result far =
        cli.run("enqueue", "--kind", "u", "--args", "{}", "--run-at", "+294246-12-31T00:00:00Z");
    assertThat(far.exitCode()).as(far.err()).isZero();
  }

  @Test
  void decimalsAreStoredExactlyAsWritten() {
    CliRunner.Result r =
        cli.run(
            "enqueue",
            "--kind",
            "decimals",
            "--args",
            "{\"big\": 1e400, \"n\": 9007199254740993.5, \"z\": 1.10, \"i\": 123456789012345678901234567890}",
            "--json");
    assertThat(r.exitCode()).as(r.err()).isZero();
    long id = r.json().path("job").path("id").asLong();
    assertThat(cli.column(id, "args->>'n'")).isEqualTo("9007199254740993.5");
    assertThat(cli.column(id, "args->>'z'")).isEqualTo("1.10");
    assertThat(cli.column(id, "args->>'i'")).isEqualTo("123456789012345678901234567890");
    assertThat(cli.column(id, "(args->'big')::numeric = 1e400")).isEqualTo("t");
    // Read back as stored, too.
    CliRunner.Result shown = cli.run("jobs", "show", String.valueOf(id), "--json");
    assertThat(shown.exitCode()).as(shown.err()).isZero();
    assertThat(shown.out())
        .contains("9007199254740993.5")
        .contains("1.10")
        .doesNotContain("Infinity");
  }

  private static void assertUsage(CliRunner.Result r, String option) {
    assertThat(r.exitCode()).as(r.err()).isEqualTo(BatonCli.USAGE);
    assertThat(r.errLines()).as(r.err()).hasSize(1);
    assertThat(r.err()).contains(option);
  }

  @Test
  void uniqueFlagsMakeOneJobAndReplaceItWhileItWaits() {
    String[] unique = {
      "enqueue",
      "--kind",
      "sync",
      "--queue",
      "cli-unique",
      "--unique-by",
      "fields",
      "--unique-fields",
      "customer",
      "--unique-per-queue",
      "--unique-period",
      "PT1H",
      "--unique-states",
      "scheduled,available,running,retryable,completed",
      "--replace",
      "args,priority",
      "--json",
      "--args"
    };
    CliRunner.Result first = cli.run(with(unique, "{\"customer\": \"acme\", \"n\": 1}"));
    assertThat(first.exitCode()).as(first.err()).isZero();
    assertThat(first.json().path("existing").asBoolean()).isFalse();
    long id = first.json().path("job").path("id").asLong();

    CliRunner.Result second = cli.run(with(unique, "{\"n\": 2, \"customer\": \"acme\"}"));
    assertThat(second.exitCode()).as(second.err()).isZero();
    assertThat(second.json().path("existing").asBoolean()).isTrue();
    assertThat(second.json().path("updated").asBoolean()).isTrue();
    assertThat(second.json().path("job").path("id").asLong()).isEqualTo(id);
    assertThat(cli.column(id, "args ->> 'n'")).isEqualTo("2");

    CliRunner.Result text =
        cli.run(
            "enqueue",
            "--kind",
            "sync",
            "--queue",
            "cli-unique",
            "--unique-by",
            "fields",
            "--unique-fields",
            "customer",
            "--unique-per-queue",
            "--unique-period",
            "PT1H",
            "--args",
            "{\"customer\": \"acme\"}");
    assertThat(text.out()).startsWith("job " + id + " already holds the unique key");
  }

  @Test
  void badUniqueFlagsAreUsageErrors() {
    CliRunner.Result noBy = cli.run("enqueue", "--kind", "k", "--args", "{}", "--debounce", "PT1M");
    assertThat(noBy.exitCode()).isEqualTo(BatonCli.USAGE);
    assertThat(noBy.err()).contains("add --unique-by args, fields or kind");

    CliRunner.Result states =
        cli.run(
            "enqueue",
            "--kind",
            "k",
            "--args",
            "{}",
            "--unique-by",
            "args",
            "--unique-states",
            "completed");
    assertThat(states.exitCode()).isEqualTo(BatonCli.USAGE);
    assertThat(states.err())
        .contains(
            "invalid --unique-by: states must hold scheduled, available, running and retryable");

    CliRunner.Result period =
        cli.run(
            "enqueue",
            "--kind",
            "k",
            "--args",
            "{}",
            "--unique-by",
            "args",
            "--unique-period",
            "1h");
    assertThat(period.exitCode()).isEqualTo(BatonCli.USAGE);
    assertThat(period.err()).contains("is not an ISO-8601 duration");
  }

  private static String[] with(String[] head, String last) {
    String[] out = java.util.Arrays.copyOf(head, head.length + 1);
    out[head.length] = last;
    return out;
  }
}
