package dev.baton.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.Job;
import dev.baton.JobState;
import dev.baton.spring.boot.shop.Block;
import dev.baton.spring.boot.shop.ShopApplication;
import dev.baton.spring.boot.shop.ShopRecord;
import dev.baton.testing.TestDatabase;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * Closing the application context stops Baton gracefully: a handler still running after {@code
 * baton.stop-timeout} is interrupted and its job handed back, available again with its attempt
 * given back. The application is started by hand, as a test-managed context cannot be closed by its
 * own test.
 */
class ContextCloseHandsRunningJobsBackTest {
  private static final TestDatabase DB = TestDatabase.get();

  @Test
  void closingTheContextHandsARunningJobBackAfterTheStopTimeout() {
    String schema = DB.newSchemaName();
    ConfigurableApplicationContext context =
        new SpringApplicationBuilder(ShopApplication.class)
            .web(WebApplicationType.NONE)
            .properties(
                "spring.datasource.url=" + DB.jdbcUrl(),
                "baton.schema=" + schema,
                "baton.migrate=true",
                "baton.stop-timeout=1s")
            .run();
    long id;
    try {
      id = context.getBean(BatonTemplate.class).enqueue(new Block("at-close")).id();
      ShopRecord record = context.getBean(ShopRecord.class);
      await().atMost(Duration.ofSeconds(60)).until(() -> record.hasBlockStarted("at-close"));
    } finally {
      context.close();
    }

    // The handler sleeps for a minute: only the interrupt after the 1 s stop timeout ends it
    // sooner, and an interrupted job is handed back, neither completed nor failed.
    Job job = readBack(schema, id);
    assertThat(job.state()).isEqualTo(JobState.AVAILABLE);
    assertThat(job.attempt()).isZero();
  }

  /** The job as read by a fresh client on connections of its own. */
  private static Job readBack(String schema, long id) {
    DriverManagerDataSource ds = new DriverManagerDataSource(DB.jdbcUrl());
    Baton reader = Baton.builder(ds).config(BatonConfig.builder().schema(schema).build()).build();
    return reader.job(id).orElseThrow();
  }
}
