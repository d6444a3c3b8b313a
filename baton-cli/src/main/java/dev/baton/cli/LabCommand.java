package dev.baton.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.cli.lab.Lab;
import dev.baton.cli.lab.LabException;
import dev.baton.cli.lab.LabReport;
import dev.baton.cli.lab.LabSettings;
import dev.baton.cli.lab.LockScope;
import dev.baton.cli.lab.Strategy;
import dev.baton.cli.lab.StrategyResult;
import java.io.PrintWriter;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code baton lab}: the same workload under four claim strategies, side by side, with the figures
 * that tell them apart. Runs on the given database or on a throwaway embedded PostgreSQL, in a
 * schema of its own that it drops afterwards; never touches Baton's tables.
 */
@Command(
    name = "lab",
    mixinStandardHelpOptions = true,
    description = {
      "Why Baton claims with FOR UPDATE SKIP LOCKED, measured: the same jobs drained by W"
          + " concurrent workers under four claim strategies, one strategy after the other:",
      "  naive        SELECT the first available id, then UPDATE it to running",
      "               by id (no lock, no state check)",
      "  optimistic   the same SELECT, then UPDATE ... WHERE id = ? AND state =",
      "               'available'; no row updated = a lost race: read again (a retry)",
      "  pessimistic  UPDATE ... WHERE id = (SELECT ... LIMIT 1 FOR UPDATE): waits for",
      "               the worker holding the first available row; an empty result while",
      "               jobs remain (the READ COMMITTED re-check) is a retry",
      "  skip-locked  the same with FOR UPDATE SKIP LOCKED (Baton's claim)",
      "Each worker is a thread with its own connection: it claims a job, works it (sleeps"
          + " --work-ms), then records the run and marks the job completed in one statement, until"
          + " a claim finds no job left.",
      "--lock-scope work (default): pessimistic and skip-locked keep the claim's transaction, and"
          + " so the row lock, open while the job is worked and commit with its completion: the"
          + " classic queue-table pattern, where the lock guards the job while it runs."
          + " --lock-scope claim: every claim commits at once and the work runs outside any"
          + " transaction, as Baton does; pessimistic then serialises only the claims, which on a"
          + " small machine costs lock waits more than throughput. Naive and optimistic take no"
          + " lock and commit their claim at once in both.",
      "Figures per strategy: RUNS (times a job was worked), DUPLICATES (runs - distinct jobs"
          + " run), LOST (jobs never run), RETRIES (claims that came back without a job although"
          + " jobs were left), LOCK_WAIT_MS (time the workers' sessions waited for a row lock,"
          + " summed over workers, sampled from pg_stat_activity every 5 ms), ELAPSED_MS (first"
          + " claim to last worker done) and JOBS_PER_SECOND (distinct jobs run / elapsed).",
      "The tables live in --lab-schema (made fresh, marked as the lab's, dropped after the run"
          + " unless --keep; a schema the lab did not make is refused): <strategy>_job and"
          + " <strategy>_run per strategy; Baton's own tables (--schema) are not used. Lab sessions commit with synchronous_commit = off:"
          + " the lab measures claiming, not the disk.",
      "Without --database-url or BATON_DATABASE_URL it starts a throwaway embedded PostgreSQL."
          + " Exit 0 when the run finished, whatever it showed (naive's duplicates are the lesson,"
          + " not a failure).",
      "Example: baton lab --jobs 5000 --workers 16 --lock-scope claim --json"
    })
final class LabCommand extends BaseCommand implements Callable<Integer> {
  static final int DEFAULT_JOBS = 2_000;
  static final int MAX_JOBS = 1_000_000;
  static final int DEFAULT_WORKERS = 8;
  static final int MAX_WORKERS = 500;
  static final int DEFAULT_WORK_MS = 2;
  static final int MAX_WORK_MS = 10_000;
  static final String DEFAULT_LAB_SCHEMA = "baton_lab";

  @Option(
      names = "--jobs",
      paramLabel = "N",
      defaultValue = "" + DEFAULT_JOBS,
      description = "Jobs per strategy, 1.." + MAX_JOBS + " (default: ${DEFAULT-VALUE})")
  int jobs;

  @Option(
      names = "--workers",
      paramLabel = "W",
      defaultValue = "" + DEFAULT_WORKERS,
      description =
          "Concurrent workers, each with its own connection, 1.."
              + MAX_WORKERS
              + " (default: ${DEFAULT-VALUE})")
  int workers;

  @Option(
      names = "--work-ms",
      paramLabel = "MS",
      defaultValue = "" + DEFAULT_WORK_MS,
      description =
          "Milliseconds each job is worked (a sleep), 0.."
              + MAX_WORK_MS
              + " (default: ${DEFAULT-VALUE}: a fast handler, one call to another service; long"
              + " enough that workers overlap, short enough that claiming shows)")
  int workMs;

  @Option(
      names = "--strategies",
      paramLabel = "LIST",
      split = ",",
      defaultValue = "naive,optimistic,pessimistic,skip-locked",
      description = "Strategies to run, in this order (default: ${DEFAULT-VALUE})")
  List<String> strategies;

  @Option(
      names = "--lock-scope",
      paramLabel = "SCOPE",
      defaultValue = "work",
      description =
          "How long pessimistic and skip-locked hold the row lock: work (until the job is"
              + " completed) or claim (commit at once, as Baton does) (default: ${DEFAULT-VALUE})")
  String lockScope;

  @Option(
      names = "--lab-schema",
      paramLabel = "SCHEMA",
      defaultValue = DEFAULT_LAB_SCHEMA,
      description =
          "Schema of the lab's tables, made and dropped by the lab: 1-55 of a-z 0-9 _, not"
              + " starting with a digit (default: ${DEFAULT-VALUE})")
  String labSchema;

  @Option(
      names = "--keep",
      description =
          "Keep the lab schema after the run, to look at the tables (the next run drops it)")
  boolean keep;

  @Override
  public Integer call() throws SQLException, InterruptedException {
    LabSettings settings = settings();
    PrintWriter progress = spec.commandLine().getErr();
    LabReport report;
    boolean embedded;
    try (LocalPostgres db = root().givenOrEmbeddedDatabase(progress)) {
      embedded = db.embedded();
      report = run(new Lab(db.url(), settings, progress));
    }
    if (json()) {
      Output.printJson(out(), json(settings, embedded, report));
    } else {
      print(settings, embedded, report);
    }
    return BatonCli.OK;
  }

  private static LabReport run(Lab lab) throws SQLException, InterruptedException {
    try {
      return lab.run();
    } catch (LabException e) {
      if (e.getCause() instanceof SQLException sql && isConnectionProblem(sql)) {
        throw sql;
      }
      throw new CommandFailedException("baton lab failed: " + e.getMessage());
    }
  }

  /** Whether the server could not be reached or refused the login: Errors explains those. */
  private static boolean isConnectionProblem(SQLException e) {
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    return state.startsWith("08") || state.startsWith("28") || state.equals("3D000");
  }

  private LabSettings settings() {
    range("--jobs", jobs, 1, MAX_JOBS);
    range("--workers", workers, 1, MAX_WORKERS);
    range("--work-ms", workMs, 0, MAX_WORK_MS);
    Set<Strategy> chosen = new LinkedHashSet<>();
    for (String s : strategies) {
      String id = s.strip().toLowerCase(Locale.ROOT);
      Optional<Strategy> strategy = Strategy.byId(id);
      if (strategy.isEmpty()) {
        throw new UsageException(
            "--strategies must be a comma-separated list of "
                + Strategy.ids()
                + ", got '"
                + s
                + "'");
      }
      chosen.add(strategy.get());
    }
    LockScope scope =
        LockScope.byId(lockScope.strip().toLowerCase(Locale.ROOT))
            .orElseThrow(
                () ->
                    new UsageException(
                        "--lock-scope must be claim or work, got '" + lockScope + "'"));
    if (labSchema == null || !labSchema.matches("[a-z_][a-z0-9_]{0,54}")) {
      throw new UsageException(
          "--lab-schema must be 1-55 characters of lower-case letters, digits and _, starting"
              + " with a letter or _, got '"
              + labSchema
              + "'");
    }
    return new LabSettings(
        jobs, workers, Duration.ofMillis(workMs), scope, new ArrayList<>(chosen), labSchema, keep);
  }

  private static void range(String option, int value, int min, int max) {
    if (value < min || value > max) {
      throw new UsageException(
          option + " must be between " + min + " and " + max + ", got " + value);
    }
  }

  private ObjectNode json(LabSettings settings, boolean embedded, LabReport report) {
    ObjectNode doc = Output.object();
    ObjectNode s = doc.putObject("settings");
    s.put("jobs", settings.jobs());
    s.put("workers", settings.workers());
    s.put("work_ms", settings.work().toMillis());
    s.put("lock_scope", settings.lockScope().id());
    ArrayNode names = s.putArray("strategies");
    settings.strategies().forEach(st -> names.add(st.id()));
    s.put("lab_schema", settings.labSchema());
    s.put("kept", settings.keep());
    s.put("database", embedded ? "embedded" : "given");
    s.put("postgres_version", report.postgresVersion());
    s.put("processors", Runtime.getRuntime().availableProcessors());
    ArrayNode results = doc.putArray("strategies");
    for (StrategyResult r : report.results()) {
      ObjectNode o = results.addObject();
      o.put("strategy", r.strategy().id());
      o.put("jobs", r.jobs());
      o.put("runs", r.runs());
      o.put("duplicates", r.duplicates());
      o.put("lost", r.lost());
      o.put("retries", r.retries());
      o.put("lock_wait_ms", r.lockWait().toMillis());
      o.put("elapsed_ms", r.elapsed().toMillis());
      o.put("jobs_per_second", Math.round(r.jobsPerSecond() * 10) / 10.0);
    }
    doc.put("conclusion", conclusion(report.results()));
    return doc;
  }

  private void print(LabSettings settings, boolean embedded, LabReport report) {
    PrintWriter out = out();
    out.println(
        String.format(
            Locale.ROOT,
            "%d jobs, %d workers, %d ms of work per job, lock scope %s; PostgreSQL %s (%s), %d"
                + " processors",
            settings.jobs(),
            settings.workers(),
            settings.work().toMillis(),
            settings.lockScope().id(),
            report.postgresVersion(),
            embedded ? "embedded" : "given",
            Runtime.getRuntime().availableProcessors()));
    out.println();
    Output.Table t =
        new Output.Table(
            "STRATEGY",
            "JOBS",
            "RUNS",
            "DUPLICATES",
            "LOST",
            "RETRIES",
            "LOCK_WAIT_MS",
            "ELAPSED_MS",
            "JOBS_PER_SECOND");
    for (StrategyResult r : report.results()) {
      t.row(
          r.strategy().id(),
          r.jobs(),
          r.runs(),
          r.duplicates(),
          r.lost(),
          r.retries(),
          r.lockWait().toMillis(),
          r.elapsed().toMillis(),
          Math.round(r.jobsPerSecond()));
    }
    t.print(out);
    out.println();
    out.println(conclusion(report.results()));
    out.flush();
  }

  /**
   * One line read off the figures: which strategies ran jobs twice or lost some, and the fastest
   * one that did neither, against the slowest such.
   */
  static String conclusion(List<StrategyResult> results) {
    List<String> parts = new ArrayList<>();
    StrategyResult fastest = null;
    StrategyResult slowest = null;
    for (StrategyResult r : results) {
      if (r.duplicates() > 0 || r.lost() > 0) {
        parts.add(
            r.strategy().id()
                + " ran "
                + r.duplicates()
                + " duplicate run"
                + (r.duplicates() == 1 ? "" : "s")
                + (r.lost() > 0 ? " and lost " + r.lost() + " jobs" : ""));
      } else {
        if (fastest == null || r.jobsPerSecond() > fastest.jobsPerSecond()) {
          fastest = r;
        }
        if (slowest == null || r.jobsPerSecond() < slowest.jobsPerSecond()) {
          slowest = r;
        }
      }
    }
    if (fastest != null) {
      String best = "fastest without duplicates: " + fastest.strategy().id();
      if (slowest != fastest) {
        best +=
            String.format(
                Locale.ROOT,
                ", %.1fx the throughput of %s",
                fastest.jobsPerSecond() / slowest.jobsPerSecond(),
                slowest.strategy().id());
      }
      parts.add(0, best);
    }
    return String.join("; ", parts) + ".";
  }
}
