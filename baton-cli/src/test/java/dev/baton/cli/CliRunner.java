package dev.baton.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.testing.TestDatabase;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Runs the baton command in-process on a test schema, capturing stdout, stderr and exit code. */
final class CliRunner {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** One run of the command. */
  record Result(int exitCode, String out, String err) {
    /** Stdout parsed as one JSON document. */
    JsonNode json() {
      try {
        return MAPPER.readTree(out);
      } catch (Exception e) {
        throw new AssertionError("stdout is not one JSON document: " + out, e);
      }
    }

    /** Stderr's lines. */
    List<String> errLines() {
      return err.lines().toList();
    }
  }

  final TestDatabase db = TestDatabase.get();
  final String schema;

  CliRunner(String schema) {
    this.schema = schema;
  }

  /** A runner on a new migrated schema. */
  static CliRunner onNewMigratedSchema() {
    return new CliRunner(TestDatabase.get().newMigratedSchema());
  }

  /** Runs {@code args} with --database-url and --schema of the test schema appended. */
  Result run(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.add("--database-url");
    all.add(db.jdbcUrl());
    all.add("--schema");
    all.add(schema);
    return runRaw(Map.of(), all.toArray(new String[0]));
  }

  /** Runs exactly {@code args} with {@code env} as the environment. */
  static Result runRaw(Map<String, String> env, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code =
        BatonCli.commandLine(new PrintWriter(out, true), new PrintWriter(err, true), env)
            .execute(args);
    return new Result(code, out.toString(), err.toString());
  }

  /** A job's column as text. */
  String column(long id, String column) {
    return db.queryString("SELECT " + column + " FROM " + schema + ".job WHERE id = " + id);
  }

  /** Makes job {@code id} look claimed by {@code node}, as a worker's claim would. */
  void markRunning(long id, String node) {
    db.execute(
        "UPDATE "
            + schema
            + ".job SET state = 'running', attempt = attempt + 1, attempted_at = now(),"
            + " attempted_by = '"
            + node
            + "', lease_expires_at = now() + interval '5 minutes', fence = nextval('"
            + schema
            + ".job_fence_seq') WHERE id = "
            + id);
  }

  /** Makes job {@code id} final in {@code state} (completed, cancelled or discarded). */
  void markFinal(long id, String state) {
    db.execute(
        "UPDATE "
            + schema
            + ".job SET state = '"
            + state
            + "', attempt = CASE WHEN '"
            + state
            + "' = 'discarded' THEN max_attempts ELSE greatest(attempt, 1) END,"
            + " finalized_at = now(), errors = CASE WHEN '"
            + state
            + "' = 'discarded' THEN '[{\"attempt\": 1, \"at\": \"2030-01-01T00:00:00Z\","
            + " \"error\": \"java.io.IOException\", \"message\": \"smtp down\"}]'::jsonb"
            + " ELSE errors END WHERE id = "
            + id);
  }

  /** Enqueues a job through the command and returns its id. */
  long enqueue(String kind, String... extra) {
    List<String> args = new ArrayList<>(List.of("enqueue", "--kind", kind, "--args", "{}"));
    args.addAll(List.of(extra));
    args.add("--json");
    Result r = run(args.toArray(new String[0]));
    if (r.exitCode() != 0) {
      throw new AssertionError("enqueue failed: " + r);
    }
    return r.json().path("job").path("id").asLong();
  }
}
