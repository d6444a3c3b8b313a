package dev.baton.internal.db;

import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The fallback poll of a node: one statement that says which of its queues have a job to claim, so
 * that an idle node with many queues sends one statement per poll interval instead of one claim per
 * queue.
 *
 * <p>Not public API.
 */
public final class PollStore {

  // One probe of job_claim_idx (partial on state = 'available', led by queue) per queue, and one
  // primary-key probe of the queue table: the same conditions a claim's pick tests, so a queue is
  // named exactly when its claim could take a job. Rows another node has locked for its claim
  // still count; that claim then finds nothing, which costs one statement, not a missed job. Each
  // queue named says which claim its limits call for (schema version 9), so that its producers
  // claim with the statement that fits it. Binds: queue names.
  private static final String FIND_QUEUES_WITH_AVAILABLE_JOBS =
      """
      SELECT w.name,
      """
          + HolderStore.CLAIM_MODE
          + """
       AS mode
      FROM unnest(?::text[]) AS w(name)
      LEFT JOIN ${schema}.queue q ON q.name = w.name
      WHERE EXISTS (SELECT 1 FROM ${schema}.job j WHERE j.state = 'available' AND j.queue = w.name)
        AND q.paused_at IS NULL
      """;

  private final String findQueuesWithAvailableJobs;

  /** Prepares the SQL text for {@code schema}. */
  public PollStore(SchemaName schema) {
    this.findQueuesWithAvailableJobs = schema.expand(FIND_QUEUES_WITH_AVAILABLE_JOBS);
  }

  /**
   * Those of {@code queues} that have an available job and are not paused, each with the claim its
   * limits call for.
   */
  public Map<String, HolderStore.ClaimMode> findQueuesWithAvailableJobs(
      DataSource ds, List<String> queues) {
    return Db.inTransaction(
        ds,
        "cannot poll queues " + queues,
        c -> {
          Map<String, HolderStore.ClaimMode> out = new HashMap<>();
          try (PreparedStatement ps = c.prepareStatement(findQueuesWithAvailableJobs)) {
            Array names = c.createArrayOf("text", queues.toArray());
            ps.setArray(1, names);
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                out.put(rs.getString(1), HolderStore.ClaimMode.of(rs.getString(2)));
              }
            }
          }
          return out;
        });
  }
}
