package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testing.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The soak benchmark's output has the documented shape and tells the truth: its rows add up to what
 * the database shows. Nothing here depends on how fast the machine is; the run's figures are
 * printed, never checked.
 */
class SoakBenchTest {
  private static final Pattern SCHEMA = Pattern.compile("(?m)^schema\\s*: (\\S+) \\(kept\\)$");
  private static final Pattern DELETED =
      Pattern.compile("(?m)^totals\\s*: deleted by the cleaner: ([0-9,]+) ");

  /**
   * A short soak (14 s at 200 jobs/s, a row every 2 s, completed jobs kept 3 s and cleaned every
   * second) on the test server. The worker is deliberately slower than the producer (one worker, 10
   * ms per job: at most 100 jobs/s), so jobs are still waiting when the run ends and the enqueued
   * and completed counts cannot agree by accident: a completed column that counted anything but
   * completions would not add up to the completed and deleted rows.
   */
  @Test
  void rowsAddUpToTheCompletedAndDeletedJobsTheDatabaseShows(@TempDir Path dir) throws Exception {
    TestDatabase db = TestDatabase.get();
    Path csv = dir.resolve("soak.csv");
    Run run =
        run(
            "--rate",
            "200",
            "--seconds",
            "14",
            "--sample-s",
            "2",
            "--retention-s",
            "3",
            "--workers",
            "1",
            "--work-ms",
            "10",
            "--csv",
            csv.toString(),
            "--database-url",
            db.jdbcUrl(),
            "--keep-schemas");
    System.out.print(run.out());
    assertThat(run.rc()).as("exit code; stderr:%n%s", run.err()).isZero();

    Matcher m = SCHEMA.matcher(run.out());
    assertThat(m.find()).as("a schema line in%n%s", run.out()).isTrue();
    String schema = m.group(1);
    try {
      List<String> lines = Files.readAllLines(csv);
      assertThat(lines.get(0)).isEqualTo(SoakSample.CSV_HEADER);
      List<Map<String, String>> rows = parse(lines);
      // 14 s / 2 s = 7 rows on the schedule, then the row of the stop.
      assertThat(rows).hasSize(8);
      assertThat(rows.stream().map(r -> r.get("phase")))
          .containsExactly(
              "warm-up", "steady", "steady", "steady", "steady", "steady", "steady", "stop");
      assertThat(tableRows(run.out()))
          .as("the printed table has the CSV's rows")
          .isEqualTo(rows.size());
      for (Map<String, String> r : rows) {
        assertThat(num(r, "heap_bytes")).as("heap size in %s", r).isPositive();
        assertThat(num(r, "index_bytes")).as("index size in %s", r).isPositive();
        assertThat(num(r, "total_bytes"))
            .as("total size in %s", r)
            .isGreaterThanOrEqualTo(num(r, "heap_bytes") + num(r, "index_bytes"));
        assertThat(num(r, "interval_s")).as("interval in %s", r).isPositive();
      }

      long everEnqueued = db.queryLong("SELECT last_value FROM " + schema + ".job_id_seq");
      long rowsLeft = db.queryLong("SELECT count(*) FROM " + schema + ".job");
      long completedLeft =
          db.queryLong("SELECT count(*) FROM " + schema + ".job WHERE state = 'completed'");
      long deleted = everEnqueued - rowsLeft;
      assertThat(sum(rows, "enqueued"))
          .as("enqueued, summed over the rows")
          .isEqualTo(everEnqueued);
      assertThat(sum(rows, "completed"))
          .as("completed, summed over the rows: the completed jobs left plus the deleted ones")
          .isEqualTo(completedLeft + deleted);
      assertThat(deleted).as("jobs the cleaner deleted").isPositive();
      assertThat(rowsLeft - completedLeft).as("jobs left unfinished").isPositive();

      Map<String, String> stop = rows.get(rows.size() - 1);
      assertThat(num(stop, "completed_kept")).isEqualTo(completedLeft);
      assertThat(num(stop, "available") + num(stop, "running") + num(stop, "waiting"))
          .isEqualTo(rowsLeft - completedLeft);
      long previous = 0;
      for (Map<String, String> r : rows) {
        // n_tup_del counts late, never ahead, and never goes back.
        assertThat(sum(List.of(r), "n_tup_del"))
            .as("n_tup_del in %s", r)
            .isBetween(previous, deleted);
        previous = sum(List.of(r), "n_tup_del");
      }
      Matcher d = DELETED.matcher(run.out());
      assertThat(d.find()).as("a deleted-by-the-cleaner line").isTrue();
      assertThat(Long.parseLong(d.group(1).replace(",", ""))).isEqualTo(deleted);
      // The rows' deleted column is the server's n_tup_del, which catches up once every backend
      // reported its counts.
      await("n_tup_del of the job table reaches the rows deleted")
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  db.queryLong(
                          "SELECT n_tup_del FROM pg_stat_user_tables WHERE relid = '"
                              + schema
                              + ".job'::regclass")
                      == deleted);

      assertThat(run.out())
          .contains("autovacuum: ")
          .contains("job table : autovacuum_vacuum_scale_factor=0.01")
          .contains(
              "rerun     : java -jar baton-benchmarks/target/baton-benchmarks.jar soak --rate 200"
                  + " --seconds 14");
      for (String series :
          List.of(
              "completed/s", "queue depth", "n_dead_tup", "heap MiB", "index MiB", "total MiB")) {
        assertThat(run.out()).containsPattern("(?m)^  " + Pattern.quote(series) + " +[0-9,.-]+ ");
      }
    } finally {
      db.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
  }

  @Test
  void badUsageExitsWithTwoAndAOneLineMessageNamingTheOption() {
    Map<List<String>, String> cases = new LinkedHashMap<>();
    cases.put(
        List.of("--rate", "fast"),
        "option --rate expects a whole number of jobs per second from 1 to 1,000,000, got"
            + " \"fast\"");
    cases.put(List.of("--rate", "0"), "option --rate expects a whole number");
    cases.put(List.of("--minutes", "1", "--seconds", "10"), "options --minutes and --seconds");
    cases.put(
        List.of("--seconds", "10", "--sample-s", "30"),
        "option --sample-s expects at most the run's length (10 s), got 30");
    cases.put(List.of("--retention-s=-1"), "option --retention-s expects a whole number");
    cases.put(List.of("--workers"), "option --workers needs a value");
    cases.put(List.of("--frobnicate", "1"), "unknown option --frobnicate");
    cases.put(
        List.of("--database-url", "postgres://x/y"),
        "option --database-url expects a jdbc:postgresql: URL");
    for (Map.Entry<List<String>, String> c : cases.entrySet()) {
      Run run = run(c.getKey().toArray(new String[0]));
      assertThat(run.rc()).as("exit code of %s", c.getKey()).isEqualTo(2);
      assertThat(run.err().lines().findFirst().orElse(""))
          .as("first line of stderr for %s", c.getKey())
          .startsWith("baton-benchmarks soak: ")
          .contains(c.getValue());
      assertThat(run.out()).as("stdout for %s", c.getKey()).isEmpty();
    }
  }

  @Test
  void csvThatCannotBeWrittenIsBadUsage(@TempDir Path dir) {
    Run run = run("--csv", dir.resolve("missing/soak.csv").toString());
    assertThat(run.rc()).isEqualTo(2);
    assertThat(run.err()).startsWith("baton-benchmarks soak: option --csv expects a writable file");
  }

  @Test
  void trendOfAStraightLineIsItsSlopeAndTheRatioOfItsThirds() {
    double[] t = {0, 60, 120, 180, 240, 300};
    double[] v = Arrays.stream(t).map(x -> 10 + x / 60).toArray(); // +1 per minute
    SoakTrend trend = SoakTrend.of(t, v);
    assertThat(trend.n()).isEqualTo(6);
    assertThat(trend.min()).isEqualTo(10);
    assertThat(trend.median()).isEqualTo(12.5);
    assertThat(trend.max()).isEqualTo(15);
    assertThat(trend.slopePer10Min()).isCloseTo(10, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(trend.slopePer10MinSecondHalf())
        .isCloseTo(10, org.assertj.core.data.Offset.offset(1e-9));
    // first third 10, 11 (mean 10.5); last third 14, 15 (mean 14.5)
    assertThat(trend.lastToFirstThird())
        .isCloseTo(14.5 / 10.5, org.assertj.core.data.Offset.offset(1e-9));

    SoakTrend flat = SoakTrend.of(new double[] {0, 30, 60}, new double[] {5, 7, 5});
    assertThat(flat.slopePer10Min()).isZero();
    assertThat(flat.lastToFirstThird()).isEqualTo(1.0);
    SoakTrend one = SoakTrend.of(new double[] {0}, new double[] {5});
    assertThat(one.slopePer10Min()).isNaN();
    assertThat(one.lastToFirstThird()).isNaN();
  }

  private record Run(int rc, String out, String err) {}

  private static Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int rc;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      rc = SoakBench.run(List.of(args), o, e);
    }
    return new Run(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private static List<Map<String, String>> parse(List<String> lines) {
    String[] header = lines.get(0).split(",");
    List<Map<String, String>> rows = new ArrayList<>();
    for (String line : lines.subList(1, lines.size())) {
      String[] f = line.split(",");
      assertThat(f).as("fields of %s", line).hasSameSizeAs(header);
      Map<String, String> row = new LinkedHashMap<>();
      for (int i = 0; i < header.length; i++) {
        row.put(header[i], f[i]);
      }
      rows.add(row);
    }
    return rows;
  }

  private static long tableRows(String out) {
    return out.lines().filter(l -> l.matches("\\s*[0-9]+ s (warm-up|steady|stop) .*")).count();
  }

  private static double num(Map<String, String> row, String column) {
    return Double.parseDouble(row.get(column));
  }

  private static long sum(List<Map<String, String>> rows, String column) {
    return rows.stream().mapToLong(r -> Long.parseLong(r.get(column))).sum();
  }
}
