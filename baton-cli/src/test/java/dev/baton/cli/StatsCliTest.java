package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.EnqueueOptions;
import dev.baton.admin.JobAdmin;
import dev.baton.migrate.Migrator;
import dev.baton.testing.TestDatabase;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code baton stats}: every figure of every queue, as JSON and as text, from jobs put in each
 * state with known times; and the empty, unmigrated and wrong-input cases.
 */
class StatsCliTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static CliRunner cli;
  private static JobAdmin admin;

  @BeforeAll
  static void jobsInEveryState() {
    cli = CliRunner.onNewMigratedSchema();
    admin = new JobAdmin(cli.db.admin(), cli.schema);
    // a backlog cap of 50 on "mail", none on "reports"
    cli.db.execute("INSERT INTO " + cli.schema + ".queue (name, backlog_cap) VALUES ('mail', 50)");
    // Queue "mail":
    //   available 3, the oldest due 150 s ago; scheduled 2; retryable 1; running 1; discarded 1
    //   completed: 3 in the last 5 minutes, 2 more in the last hour, 1 two hours ago (not counted)
    //   failed attempts: the retryable job's 1 minute ago; the discarded job's 2 and 20 minutes
    //   ago and 2 hours ago; a cancel entry 1 minute ago (never a failure)
    //   => failed_5m 2, failed_1h 3; share 5m 2/(2+3) = 0.4, 1h 3/(3+5) = 0.375
    long oldest = enqueue("mail");
    set(oldest, "scheduled_at = now() - interval '150 seconds'");
    enqueue("mail");
    enqueue("mail");
    for (int i = 0; i < 2; i++) {
      admin.enqueue(
          "stats_job",
          MAPPER.createObjectNode(),
          EnqueueOptions.builder().queue("mail").runAt(Instant.now().plusSeconds(3600)).build());
    }
    long retryable = enqueue("mail");
    set(
        retryable,
        "state = 'retryable', attempt = 1, scheduled_at = now() + interval '1 hour', errors = "
            + errors("1 minute"));
    cli.markRunning(enqueue("mail"), "some-node");
    long discarded = enqueue("mail");
    set(
        discarded,
        "state = 'discarded', attempt = 3, finalized_at = now() - interval '2 minutes', errors = "
            + errors("2 hours", "20 minutes", "2 minutes"));
    for (String ago : List.of("10 seconds", "1 minute", "3 minutes", "30 minutes", "50 minutes")) {
      set(enqueue("mail"), "state = 'completed', attempt = 1, finalized_at = now() - " + i(ago));
    }
    set(
        enqueue("mail"),
        "state = 'completed', attempt = 1, finalized_at = now() - " + i("2 hours"));
    long cancelled = enqueue("mail");
    set(
        cancelled,
        "state = 'cancelled', attempt = 1, finalized_at = now(), errors = jsonb_build_array("
            + "jsonb_build_object('attempt', 1, 'at', now() - interval '1 minute', 'error',"
            + " 'cancelled', 'message', 'by operator'))");
    // Queue "reports": one discarded job, finalized 3 hours ago: not in the view, listed anyway.
    set(
        enqueue("reports"),
        "state = 'discarded', attempt = 1, finalized_at = now() - interval '3 hours', errors = "
            + errors("3 hours"));
  }

  private static long enqueue(String queue) {
    return admin
        .enqueue(
            "stats_job", MAPPER.createObjectNode(), EnqueueOptions.builder().queue(queue).build())
        .job()
        .id();
  }

  private static void set(long id, String assignments) {
    cli.db.execute("UPDATE " + cli.schema + ".job SET " + assignments + " WHERE id = " + id);
  }

  private static String i(String ago) {
    return "interval '" + ago + "'";
  }

  /** An errors array with one failed attempt per age, oldest first. */
  private static String errors(String... agos) {
    List<String> entries = new ArrayList<>();
    for (int n = 0; n < agos.length; n++) {
      entries.add(
          "jsonb_build_object('attempt', "
              + (n + 1)
              + ", 'at', now() - "
              + i(agos[n])
              + ", 'error', 'java.io.IOException', 'message', 'smtp down')");
    }
    return "jsonb_build_array(" + String.join(", ", entries) + ")";
  }

  @Test
  void jsonHasEveryFigureOfEveryQueue() {
    CliRunner.Result r = cli.run("stats", "--json");
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.err()).isEmpty();
    JsonNode all = r.json();
    assertThat(all.isArray()).isTrue();
    assertThat(all).hasSize(2);

    JsonNode mail = all.get(0);
    assertThat(mail.path("queue").asText()).isEqualTo("mail");
    assertThat(mail.path("available").asLong()).isEqualTo(3);
    assertThat(mail.path("oldest_available_age_s").asDouble()).isBetween(149.0, 240.0);
    assertThat(mail.path("running").asLong()).isEqualTo(1);
    assertThat(mail.path("scheduled").asLong()).isEqualTo(2);
    assertThat(mail.path("retryable").asLong()).isEqualTo(1);
    assertThat(mail.path("discarded").asLong()).isEqualTo(1);
    assertThat(mail.path("completed_5m").asLong()).isEqualTo(3);
    assertThat(mail.path("failed_5m").asLong()).isEqualTo(2);
    assertThat(mail.path("failure_share_5m").asDouble()).isCloseTo(0.4, within(1e-9));
    assertThat(mail.path("throughput_per_s_5m").asDouble()).isCloseTo(3 / 300.0, within(1e-12));
    assertThat(mail.path("completed_1h").asLong()).isEqualTo(5);
    assertThat(mail.path("failed_1h").asLong()).isEqualTo(3);
    assertThat(mail.path("failure_share_1h").asDouble()).isCloseTo(0.375, within(1e-9));
    assertThat(mail.path("throughput_per_s_1h").asDouble()).isCloseTo(5 / 3600.0, within(1e-12));
    assertThat(mail.path("backlog_cap").asInt()).isEqualTo(50);

    JsonNode reports = all.get(1);
    assertThat(reports.path("queue").asText()).isEqualTo("reports");
    assertThat(reports.path("discarded").asLong()).isEqualTo(1);
    assertThat(reports.path("backlog_cap").isNull()).isTrue();
    for (String zero :
        List.of(
            "available",
            "oldest_available_age_s",
            "running",
            "scheduled",
            "retryable",
            "completed_5m",
            "failed_5m",
            "failure_share_5m",
            "throughput_per_s_5m",
            "completed_1h",
            "failed_1h",
            "failure_share_1h",
            "throughput_per_s_1h")) {
      assertThat(reports.path(zero).isNumber()).as(zero).isTrue();
      assertThat(reports.path(zero).asDouble()).as(zero).isZero();
    }
    // the same fields for every queue, nothing more
    List<String> names = new ArrayList<>();
    mail.fieldNames().forEachRemaining(names::add);
    List<String> reportNames = new ArrayList<>();
    reports.fieldNames().forEachRemaining(reportNames::add);
    assertThat(names).hasSize(16).isEqualTo(reportNames);
  }

  @Test
  void textShowsOneRowPerQueueWithRoundedFigures() {
    CliRunner.Result r = cli.run("stats");
    assertThat(r.exitCode()).as(r.err()).isZero();
    List<String> lines = r.out().lines().toList();
    Map<String, List<String>> rows = new HashMap<>();
    for (String line : lines) {
      List<String> cells = Arrays.asList(line.split("\\s{2,}"));
      rows.put(cells.get(0), cells);
    }
    assertThat(rows.get("QUEUE"))
        .containsExactly(
            "QUEUE",
            "AVAILABLE",
            "OLDEST",
            "RUNNING",
            "SCHEDULED",
            "RETRYABLE",
            "DISCARDED",
            "FAILED_5M",
            "FAILED_1H",
            "JOBS/S_5M",
            "JOBS/S_1H",
            "CAP");
    List<String> mail = rows.get("mail");
    assertThat(mail).hasSize(12);
    assertThat(mail.get(1)).isEqualTo("3");
    assertThat(mail.get(2)).matches("2m[3-5]\\ds|[34]m\\d\\ds"); // 150 s and a little more
    assertThat(mail.subList(3, 12))
        .containsExactly("1", "2", "1", "1", "40.0%", "37.5%", "0.01", "0.0014", "50");
    // no attempt ended in the windows: no share; nothing available: no age
    assertThat(rows.get("reports"))
        .containsExactly("reports", "0", "-", "0", "0", "0", "1", "-", "-", "0", "0", "-");
    assertThat(lines.get(0)).startsWith("QUEUE");
    assertThat(lines).hasSize(4); // header, two queues, the legend
    assertThat(lines.get(3)).startsWith("OLDEST: ");
  }

  @Test
  void anEmptySchemaHasNoQueues() {
    CliRunner empty = CliRunner.onNewMigratedSchema();
    CliRunner.Result text = empty.run("stats");
    assertThat(text.exitCode()).as(text.err()).isZero();
    assertThat(text.out()).startsWith("no queues");
    assertThat(text.out().lines()).hasSize(1);
    CliRunner.Result json = empty.run("stats", "--json");
    assertThat(json.exitCode()).isZero();
    assertThat(json.json().isArray()).isTrue();
    assertThat(json.json()).isEmpty();
  }

  @Test
  void aSchemaBelowVersion3FailsWithOneLineNamingTheVersion() {
    TestDatabase db = TestDatabase.get();
    String schema = db.newSchemaName();
    new Migrator(db.admin(), schema).up(2);
    CliRunner.Result r = new CliRunner(schema).run("stats");
    assertThat(r.exitCode()).isEqualTo(BatonCli.FAILED);
    assertThat(r.out()).isEmpty();
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err())
        .contains("schema \"" + schema + "\" is at version 2")
        .contains("queue_stats")
        .contains("baton migrate up");
  }

  @Test
  void aSchemaWithoutBatonTablesFailsWithOneLine() {
    CliRunner.Result r = new CliRunner(TestDatabase.get().newSchemaName()).run("stats", "--json");
    assertThat(r.exitCode()).isEqualTo(BatonCli.FAILED);
    assertThat(r.out()).isEmpty();
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).contains("has no Baton tables").contains("baton migrate up");
  }

  @Test
  void wrongInputIsAUsageErrorAndAnUnreachableDatabaseAFailure() {
    CliRunner.Result badSchema =
        CliRunner.runRaw(
            Map.of(), "stats", "--database-url", cli.db.jdbcUrl(), "--schema", "Not-A-Schema");
    assertThat(badSchema.exitCode()).isEqualTo(BatonCli.USAGE);
    assertThat(badSchema.errLines()).hasSize(1);
    assertThat(badSchema.err()).contains("schema");

    CliRunner.Result extra = cli.run("stats", "mail");
    assertThat(extra.exitCode()).isEqualTo(BatonCli.USAGE);
    assertThat(extra.errLines()).hasSize(1);

    CliRunner.Result noUrl = CliRunner.runRaw(Map.of(), "stats");
    assertThat(noUrl.exitCode()).isEqualTo(BatonCli.USAGE);
    assertThat(noUrl.err()).contains("--database-url");

    CliRunner.Result down =
        CliRunner.runRaw(
            Map.of(),
            "stats",
            "--database-url",
            "jdbc:postgresql://127.0.0.1:1/nowhere?user=u&password=secret&connectTimeout=2");
    assertThat(down.exitCode()).isEqualTo(BatonCli.FAILED);
    assertThat(down.errLines()).hasSize(1);
    assertThat(down.err()).contains("cannot connect").doesNotContain("secret");
  }
}
