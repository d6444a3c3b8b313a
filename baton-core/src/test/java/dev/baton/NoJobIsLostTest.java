package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.testing.Fixture;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Invariant 1: no job is lost — every enqueued and committed job reaches a final state. Also
 * invariant 4 at scale: no job is completed twice.
 */
class NoJobIsLostTest {

  record Ledgered(int n) implements JobArgs {}

  @Test
  void twentyThousandJobsOnFourClientsEachRunOnceAndComplete() {
    int jobs = 20_000;
    try (Fixture f = new Fixture(8);
        HikariDataSource ledgerPool = f.db().dataSource(64)) {
      // No unique constraint on purpose: a job applied twice would show as a second row.
      f.execute("CREATE TABLE %s.ledger (job_id bigint NOT NULL, fence bigint NOT NULL)");
      String insert = "INSERT INTO \"" + f.schema() + "\".ledger (job_id, fence) VALUES (?, ?)";
      List<Baton> clients = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        clients.add(
            f.startOnOwnPool(
                24,
                f.config().nodeId("node-" + i).queue("default", 16).build(),
                b ->
                    b.handler(
                        Ledgered.class,
                        (ctx, args) -> {
                          // The handler's write and the job's completion commit together.
                          try (Connection c = ledgerPool.getConnection()) {
                            c.setAutoCommit(false);
                            try (PreparedStatement ps = c.prepareStatement(insert)) {
                              ps.setLong(1, ctx.jobId());
                              ps.setLong(2, ctx.fence());
                              ps.executeUpdate();
                            }
                            ctx.completeIn(c);
                            c.commit();
                          }
                        })));
      }
      List<JobRequest> requests = new ArrayList<>(jobs);
      for (int i = 0; i < jobs; i++) {
        requests.add(JobRequest.of(new Ledgered(i)));
      }
      for (int from = 0; from < jobs; from += 5_000) {
        f.reader().enqueueMany(requests.subList(from, from + 5_000));
      }

      await()
          .atMost(Duration.ofMinutes(3))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> f.count("SELECT count(*) FROM %s.job WHERE state = 'completed'") == jobs);

      assertThat(f.count("SELECT count(*) FROM %s.job")).isEqualTo(jobs);
      assertThat(f.count("SELECT count(*) FROM %s.job WHERE state <> 'completed'")).isZero();
      assertThat(f.count("SELECT count(*) FROM %s.job WHERE attempt <> 1")).isZero();
      assertThat(f.count("SELECT count(*) FROM %s.ledger")).isEqualTo(jobs);
      assertThat(f.count("SELECT count(DISTINCT job_id) FROM %s.ledger")).isEqualTo(jobs);
      // Each ledger row carries the fence of the claim that completed its job.
      assertThat(
              f.count(
                  "SELECT count(*) FROM %s.ledger l JOIN %s.job j ON j.id = l.job_id"
                      + " WHERE j.fence = l.fence"))
          .isEqualTo(jobs);
      long completedByClients = clients.stream().mapToLong(c -> c.counters().completed()).sum();
      assertThat(completedByClients).isEqualTo(jobs);
      assertThat(clients).allSatisfy(c -> assertThat(c.counters().claimed()).isPositive());
    }
  }
}
