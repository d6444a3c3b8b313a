package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.testing.TestDatabase;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class LabCliTest {
  private static final List<String> ALL =
      List.of("naive", "optimistic", "pessimistic", "skip-locked");

  private static CliRunner cli;
  private static TestDatabase db;

  @BeforeAll
  static void runner() {
    db = TestDatabase.get();
    // The lab never reads Baton's schema; CliRunner passes one anyway.
    cli = new CliRunner(db.newSchemaName());
  }

  @Test
  void naiveRunsJobsTwiceWhileSkipLockedRunsEachOnceFasterThanPessimistic() {
    String lab = labSchema();
    CliRunner.Result r =
        cli.run("lab", "--jobs", "400", "--workers", "8", "--lab-schema", lab, "--keep", "--json");
    try {
      assertThat(r.exitCode()).as(r.err()).isZero();
      JsonNode doc = r.json();
      assertThat(doc.path("settings").path("jobs").asInt()).isEqualTo(400);
      assertThat(doc.path("settings").path("workers").asInt()).isEqualTo(8);
      assertThat(doc.path("settings").path("lock_scope").asText()).isEqualTo("work");
      Map<String, JsonNode> s = byStrategy(doc);
      assertThat(s.keySet()).containsExactlyElementsOf(ALL);

      assertThat(s.get("naive").path("duplicates").asLong()).as(r.out()).isPositive();
      for (String safe : List.of("optimistic", "pessimistic", "skip-locked")) {
        assertThat(s.get(safe).path("duplicates").asLong()).as(safe).isZero();
        assertThat(s.get(safe).path("runs").asLong()).as(safe).isEqualTo(400);
      }
      // With the row locked while the job is worked, pessimistic works one job at a time and
      // skip-locked up to eight: a structural gap (4-12x seen on a loaded two-core machine), so a
      // factor of two is no race against the clock, and a skip-locked that waited like
      // pessimistic (1x) fails it.
      JsonNode pessimistic = s.get("pessimistic");
      JsonNode skipLocked = s.get("skip-locked");
      assertThat(skipLocked.path("jobs_per_second").asDouble())
          .as(r.out())
          .isGreaterThan(2 * pessimistic.path("jobs_per_second").asDouble());
      assertThat(pessimistic.path("lock_wait_ms").asLong()).as(r.out()).isPositive();
      assertThat(skipLocked.path("lock_wait_ms").asLong())
          .as(r.out())
          .isLessThan(pessimistic.path("lock_wait_ms").asLong() / 10);

      // The figures are what the lab's tables hold, counted here independently.
      for (String name : ALL) {
        JsonNode f = s.get(name);
        String prefix = lab + "." + name.replace('-', '_');
        assertThat(f.path("lost").asLong()).as(name).isZero();
        assertThat(f.path("runs").asLong())
            .as(name)
            .isEqualTo(f.path("jobs").asLong() + f.path("duplicates").asLong())
            .isEqualTo(db.queryLong("SELECT count(*) FROM " + prefix + "_run"));
        assertThat(db.queryLong("SELECT count(*) - count(DISTINCT job_id) FROM " + prefix + "_run"))
            .as(name)
            .isEqualTo(f.path("duplicates").asLong());
        assertThat(
                db.queryLong(
                    "SELECT count(*) FROM "
                        + prefix
                        + "_job j WHERE j.state <> 'completed' OR NOT EXISTS"
                        + " (SELECT 1 FROM "
                        + prefix
                        + "_run r WHERE r.job_id = j.id)"))
            .as(name + ": jobs not completed or never run")
            .isZero();
      }
      assertThat(doc.path("conclusion").asText())
          .startsWith("fastest without duplicates: ")
          .contains("naive ran ");
    } finally {
      db.execute("DROP SCHEMA IF EXISTS " + lab + " CASCADE");
    }
  }

  @Test
  void withShortClaimsAsBatonMakesThemOnlyNaiveRunsJobsTwice() {
    CliRunner.Result r =
        cli.run(
            "lab",
            "--jobs",
            "300",
            "--workers",
            "6",
            "--lock-scope",
            "claim",
            "--lab-schema",
            labSchema(),
            "--json");
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.json().path("settings").path("lock_scope").asText()).isEqualTo("claim");
    Map<String, JsonNode> s = byStrategy(r.json());
    assertThat(s.keySet()).containsExactlyElementsOf(ALL);
    assertThat(s.get("naive").path("duplicates").asLong()).as(r.out()).isPositive();
    for (String safe : List.of("optimistic", "pessimistic", "skip-locked")) {
      assertThat(s.get(safe).path("duplicates").asLong()).as(safe).isZero();
      assertThat(s.get(safe).path("runs").asLong()).as(safe).isEqualTo(300);
    }
    for (JsonNode f : s.values()) {
      assertThat(f.path("lost").asLong()).as(r.out()).isZero();
    }
    // No throughput assertion here: with claims this short, pessimistic queues only for the claim
    // statement, and on a loaded two-core machine its figure comes within noise of skip-locked's.
  }

  @Test
  void printsATableAndAConclusionAndDropsItsSchema() {
    String lab = labSchema();
    CliRunner.Result r =
        cli.run(
            "lab",
            "--jobs",
            "40",
            "--workers",
            "3",
            "--strategies",
            "skip-locked,optimistic",
            "--lab-schema",
            lab);
    assertThat(r.exitCode()).as(r.err()).isZero();
    List<String> lines = r.out().lines().toList();
    assertThat(lines.get(0))
        .startsWith("40 jobs, 3 workers, 2 ms of work per job, lock scope work");
    assertThat(lines.get(2))
        .startsWith("STRATEGY")
        .contains("DUPLICATES", "LOST", "RETRIES", "LOCK_WAIT_MS", "JOBS_PER_SECOND");
    assertThat(lines.get(3)).matches("skip-locked\\s+40\\s+40\\s+0\\s+0\\s+0\\s.*");
    assertThat(lines.get(4)).matches("optimistic\\s+40\\s+40\\s+0\\s+0\\s.*");
    assertThat(lines.get(6)).startsWith("fastest without duplicates: ");
    assertThat(r.err()).contains("lab: skip-locked: 40 jobs, 40 runs in", "lab: optimistic: ");
    assertThat(schemaExists(lab)).isFalse();
  }

  @Test
  void aSchemaLeftByAKeptRunIsReplaced() {
    String lab = labSchema();
    try {
      String[] first = {"lab", "--jobs", "30", "--strategies", "skip-locked", "--lab-schema", lab};
      assertThat(cli.run(concat(first, "--keep")).exitCode()).isZero();
      assertThat(db.queryLong("SELECT count(*) FROM " + lab + ".skip_locked_job")).isEqualTo(30);

      CliRunner.Result again =
          cli.run("lab", "--jobs", "20", "--strategies", "naive", "--lab-schema", lab, "--keep");
      assertThat(again.exitCode()).as(again.err()).isZero();
      assertThat(db.queryLong("SELECT count(*) FROM " + lab + ".naive_job")).isEqualTo(20);
      assertThat(db.queryString("SELECT to_regclass('" + lab + ".skip_locked_job')")).isNull();
    } finally {
      db.execute("DROP SCHEMA IF EXISTS " + lab + " CASCADE");
    }
  }

  @Test
  void aSchemaTheLabDidNotMakeIsRefusedAndLeftAlone() {
    String mine = labSchema();
    db.execute("CREATE SCHEMA " + mine);
    db.execute("CREATE TABLE " + mine + ".orders (id int)");
    try {
      CliRunner.Result r = cli.run("lab", "--jobs", "10", "--lab-schema", mine);
      assertThat(r.exitCode()).isEqualTo(BatonCli.FAILED);
      assertThat(r.out()).isEmpty();
      assertThat(r.errLines()).hasSize(1);
      assertThat(r.err())
          .startsWith("baton: baton lab failed: cannot run the lab in schema \"" + mine + "\"")
          .contains("was not made by baton lab", "--lab-schema");
      assertThat(db.queryString("SELECT to_regclass('" + mine + ".orders')")).isNotNull();
    } finally {
      db.execute("DROP SCHEMA " + mine + " CASCADE");
    }
  }

  @Test
  void badOptionValuesAreOneUsageLineNamingTheOption() {
    String lab = labSchema();
    assertUsage(cli.run("lab", "--workers", "0", "--lab-schema", lab), "--workers");
    assertUsage(cli.run("lab", "--workers", "501", "--lab-schema", lab), "--workers");
    assertUsage(cli.run("lab", "--jobs", "-1", "--lab-schema", lab), "--jobs");
    assertUsage(cli.run("lab", "--jobs", "0", "--lab-schema", lab), "--jobs");
    assertUsage(cli.run("lab", "--jobs", "many", "--lab-schema", lab), "--jobs");
    assertUsage(cli.run("lab", "--work-ms", "-1", "--lab-schema", lab), "--work-ms");
    assertUsage(cli.run("lab", "--strategies", "naive,fifo", "--lab-schema", lab), "--strategies");
    assertUsage(cli.run("lab", "--lock-scope", "forever", "--lab-schema", lab), "--lock-scope");
    assertUsage(cli.run("lab", "--lab-schema", "Lab-Schema"), "--lab-schema");
    assertUsage(cli.run("lab", "--lab-schema", "1lab"), "--lab-schema");
    assertThat(schemaExists(lab)).isFalse();

    CliRunner.Result r = cli.run("lab", "--strategies", "naive,fifo", "--lab-schema", lab);
    assertThat(r.err())
        .contains("naive, optimistic, pessimistic, skip-locked")
        .contains("got 'fifo'");
  }

  private static void assertUsage(CliRunner.Result r, String option) {
    assertThat(r.exitCode()).as(r.err()).isEqualTo(BatonCli.USAGE);
    assertThat(r.out()).isEmpty();
    assertThat(r.errLines()).as(r.err()).hasSize(1);
    assertThat(r.err()).startsWith("baton: ").contains(option);
  }

  private static Map<String, JsonNode> byStrategy(JsonNode doc) {
    Map<String, JsonNode> m = new LinkedHashMap<>();
    for (JsonNode s : doc.path("strategies")) {
      m.put(s.path("strategy").asText(), s);
    }
    return m;
  }

  private static String labSchema() {
    return db.newSchemaName() + "_lab";
  }

  private static boolean schemaExists(String schema) {
    return db.queryLong("SELECT count(*) FROM pg_namespace WHERE nspname = '" + schema + "'") > 0;
  }

  private static String[] concat(String[] args, String... more) {
    String[] all = new String[args.length + more.length];
    System.arraycopy(args, 0, all, 0, args.length);
    System.arraycopy(more, 0, all, args.length, more.length);
    return all;
  }
}
