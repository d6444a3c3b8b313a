package dev.baton.cli.lab;

/**
 * The SQL of one strategy's two tables in the lab schema: {@code <strategy>_job} (the jobs to
 * claim) and {@code <strategy>_run} (one row each time a worker worked a job, so duplicates are
 * counted in SQL). The schema name is validated by the command and quoted here; every value is a
 * bind parameter.
 */
final class LabTables {
  static final String CREATE_JOB =
      """
      CREATE TABLE ${job} (
        id bigint PRIMARY KEY,
        state text NOT NULL DEFAULT 'available',
        claimed_by text,
        claimed_at timestamptz,
        completed_at timestamptz)
      """;

  // As Baton's own job table: claims read a partial index, never the finished rows.
  static final String CREATE_JOB_INDEX =
      "CREATE INDEX ${prefix}_job_available ON ${job} (id) WHERE state = 'available'";

  static final String CREATE_RUN =
      """
      CREATE TABLE ${run} (
        job_id bigint NOT NULL,
        worker text NOT NULL,
        ran_at timestamptz NOT NULL DEFAULT clock_timestamp())
      """;

  static final String INSERT_JOBS = "INSERT INTO ${job} (id) SELECT generate_series(1, ?)";

  static final String ANALYZE_JOB = "ANALYZE ${job}";

  // naive, optimistic: the read before the write; no lock, so several workers may read one id.
  static final String SELECT_FIRST_AVAILABLE =
      "SELECT id FROM ${job} WHERE state = 'available' ORDER BY id LIMIT 1";

  // pessimistic: one statement, as Baton claims, but waiting for whoever holds the first
  // available row, so claims queue one behind another. Under READ COMMITTED a waiter re-checks the
  // row once its holder commits and moves on to the next one; it may find none although others
  // are available by then.
  static final String CLAIM_LOCKING =
      """
      UPDATE ${job} SET state = 'running', claimed_by = ?, claimed_at = clock_timestamp()
      WHERE id = (SELECT id FROM ${job} WHERE state = 'available' ORDER BY id LIMIT 1 FOR UPDATE)
      RETURNING id
      """;

  // skip-locked: Baton's claim; passes over rows other workers hold, so no worker waits for
  // another.
  static final String CLAIM_SKIPPING_LOCKED =
      """
      UPDATE ${job} SET state = 'running', claimed_by = ?, claimed_at = clock_timestamp()
      WHERE id = (SELECT id FROM ${job} WHERE state = 'available' ORDER BY id LIMIT 1
                  FOR UPDATE SKIP LOCKED)
      RETURNING id
      """;

  // naive: by id alone; a worker that read the id late still "claims" a job someone else runs.
  static final String MARK_RUNNING =
      "UPDATE ${job} SET state = 'running', claimed_by = ?, claimed_at = clock_timestamp()"
          + " WHERE id = ?";

  // optimistic: matches no row when another worker claimed the job first (the lost race).
  static final String MARK_RUNNING_IF_AVAILABLE =
      "UPDATE ${job} SET state = 'running', claimed_by = ?, claimed_at = clock_timestamp()"
          + " WHERE id = ? AND state = 'available'";

  // pessimistic: after an empty claim, a fresh look decides between "retry" and "nothing left".
  static final String ANY_AVAILABLE =
      "SELECT (EXISTS (SELECT 1 FROM ${job} WHERE state = 'available'))::int";

  // One statement (one commit) records the run and finishes the job.
  static final String COMPLETE =
      """
      WITH run AS (INSERT INTO ${run} (job_id, worker) VALUES (?, ?))
      UPDATE ${job} SET state = 'completed', completed_at = clock_timestamp() WHERE id = ?
      """;

  static final String COUNT_RUNS = "SELECT count(*), count(DISTINCT job_id) FROM ${run}";

  private final String prefix;
  private final String job;
  private final String run;

  LabTables(String quotedSchema, Strategy strategy) {
    this.prefix = strategy.tablePrefix();
    this.job = quotedSchema + "." + prefix + "_job";
    this.run = quotedSchema + "." + prefix + "_run";
  }

  /** {@code sql} with the table names of this strategy filled in. */
  String expand(String sql) {
    return sql.replace("${job}", job).replace("${run}", run).replace("${prefix}", prefix);
  }
}
