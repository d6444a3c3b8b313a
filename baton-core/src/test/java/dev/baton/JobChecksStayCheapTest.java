package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.migrate.Migrator;
import dev.baton.testing.Fixture;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * "A capability costs nothing where it is not used", for the job table's CHECK constraints: every
 * statement that writes a job row (each single enqueue, each claim and finish) reads the table's
 * checks from their stored form ({@code pg_constraint.conbin}) before it evaluates them, and that
 * read costs in proportion to the form's length. A check written as a list of text constants has a
 * long stored form (each constant is stored byte by byte); the checks unique jobs and workflows
 * added are function calls instead. This test holds the checks of the current schema to no more
 * than those of schema version 6, the last before unique jobs, backlog caps, limits and workflows,
 * both read from the same server.
 */
class JobChecksStayCheapTest {

  @Test
  void theJobTablesChecksAreStoredNoLongerThanBeforeTheNewCapabilities() throws SQLException {
    try (Fixture f = new Fixture(2)) {
      String before = f.schema() + "_v6";
      new Migrator(f.dataSource(), before).up(6);
      Map<String, Integer> now = checks(f, f.schema());
      Map<String, Integer> v6 = checks(f, before);

      assertThat(now).containsKeys("job_state_check", "job_unique_states_check");
      assertThat(total(now))
          .as("stored length of the job table's checks now %s, against version 6's %s", now, v6)
          .isLessThanOrEqualTo(total(v6));
    }
  }

  private static Map<String, Integer> checks(Fixture f, String schema) throws SQLException {
    Map<String, Integer> lengths = new TreeMap<>();
    try (Connection c = f.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT c.conname, length(c.conbin::text) FROM pg_constraint c"
                    + " JOIN pg_class r ON r.oid = c.conrelid"
                    + " JOIN pg_namespace n ON n.oid = r.relnamespace"
                    + " WHERE n.nspname = ? AND r.relname = 'job' AND c.contype = 'c'")) {
      ps.setString(1, schema);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          lengths.put(rs.getString(1), rs.getInt(2));
        }
      }
    }
    return lengths;
  }

  private static int total(Map<String, Integer> lengths) {
    return lengths.values().stream().mapToInt(Integer::intValue).sum();
  }
}
