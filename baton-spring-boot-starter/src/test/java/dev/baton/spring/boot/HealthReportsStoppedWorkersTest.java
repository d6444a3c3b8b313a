package dev.baton.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.JobArgs;
import dev.baton.admin.BatonAdmin;
import dev.baton.spring.boot.BatonHealth.Status;
import dev.baton.testing.TestDatabase;
import org.junit.jupiter.api.Test;

/**
 * The health check says OUT_OF_SERVICE while a node's workers should run but do not (before start,
 * after stop), UP while they run, and UP for a node that only enqueues.
 */
class HealthReportsStoppedWorkersTest {
  private static final TestDatabase DB = TestDatabase.get();

  record Ping(int n) implements JobArgs {}

  @Test
  void stoppedWorkersAreOutOfServiceWhileTheyShouldRun() {
    String schema = DB.newMigratedSchema();
    try (HikariDataSource pool = DB.dataSource(4)) {
      BatonConfig config = BatonConfig.builder().schema(schema).queue("default", 2).build();
      Baton baton = Baton.builder(pool).config(config).handler(Ping.class, (ctx, a) -> {}).build();
      BatonHealth health = new BatonHealth(baton, new BatonAdmin(pool, config), pool, true);

      assertThat(health.check().status()).isEqualTo(Status.OUT_OF_SERVICE);
      assertThat(health.check().details().get("reason").toString()).contains("workers are stopped");
      baton.start();
      assertThat(health.check().status()).isEqualTo(Status.UP);
      assertThat(health.check().details()).containsEntry("workersRunning", true);
      baton.stop();
      assertThat(health.check().status()).isEqualTo(Status.OUT_OF_SERVICE);

      BatonHealth enqueueOnly = new BatonHealth(baton, new BatonAdmin(pool, config), pool, false);
      assertThat(enqueueOnly.check().status()).isEqualTo(Status.UP);
    }
  }
}
