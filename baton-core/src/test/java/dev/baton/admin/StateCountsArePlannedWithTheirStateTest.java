package dev.baton.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.JobState;
import dev.baton.testing.Fixture;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * A capped count of a state's jobs (the dashboard's state tabs) reads the state's index only when
 * its plan sees the state: the partial indexes job_claim_idx, job_waiting_idx and job_running_idx
 * serve {@code state = 'available'} but not {@code state = $1}. pgjdbc turns a statement run five
 * times on a connection into a server-side prepared one, whose generic plan PostgreSQL may then
 * reuse: on a table of 1,000,000 jobs that plan read the whole table for each tab (200-300 ms a
 * list page). The count is never server-prepared, so it is planned with its values every time.
 */
class StateCountsArePlannedWithTheirStateTest {

  @Test
  void theCountIsNeverPreparedOnTheServer() throws Exception {
    try (Fixture f = new Fixture();
        HikariDataSource one = f.db().dataSource(1)) {
      BatonAdmin admin = new BatonAdmin(one, f.schema());
      for (int i = 0; i < 10; i++) {
        for (JobState s : JobState.values()) {
          admin.count(new JobBrowser.Filter(s, null, null, null, null), 1_001);
        }
      }
      try (Connection c = one.getConnection();
          Statement st = c.createStatement();
          ResultSet rs =
              st.executeQuery(
                  "SELECT count(*) FROM pg_prepared_statements"
                      + " WHERE statement LIKE 'SELECT count(*) FROM (%'")) {
        rs.next();
        assertThat(rs.getLong(1)).as("server-side prepared count statements").isZero();
      }
    }
  }
}
