package dev.baton.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.BacklogCapExceededException;
import dev.baton.Baton;
import dev.baton.EnqueueOptions;
import dev.baton.JobArgs;
import dev.baton.admin.BatonAdmin;
import dev.baton.testing.TestDatabase;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code baton.backlog-caps.<queue>} sets the queue's backlog cap cluster-wide when the client is
 * created, and a value out of range fails start-up naming the property.
 */
class BacklogCapPropertiesTest {
  private static final TestDatabase DB = TestDatabase.get();

  record Report(int n) implements JobArgs {}

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(BatonAutoConfiguration.class))
          .withBean(DataSource.class, () -> DB.dataSource(2));

  @Test
  void aBacklogCapPropertyIsSetOnTheQueueAtStartUp() {
    String schema = DB.newMigratedSchema();
    runner
        .withPropertyValues(
            "baton.schema=" + schema,
            "baton.enabled=false",
            "baton.allow-unknown-kinds=true",
            "baton.backlog-caps.reports=1")
        .run(
            context -> {
              assertThat(context.getBean(BatonAdmin.class).backlogCaps())
                  .isEqualTo(Map.of("reports", 1));
              Baton baton = context.getBean(Baton.class);
              EnqueueOptions reports = EnqueueOptions.builder().queue("reports").build();
              baton.enqueue(new Report(1), reports);
              org.assertj.core.api.Assertions.assertThatThrownBy(
                      () -> baton.enqueue(new Report(2), reports))
                  .isInstanceOf(BacklogCapExceededException.class);
            });
  }

  @Test
  void aBacklogCapOutOfRangeFailsStartUpNamingTheProperty() {
    String schema = DB.newMigratedSchema();
    runner
        .withPropertyValues(
            "baton.schema=" + schema, "baton.enabled=false", "baton.backlog-caps.reports=0")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .isInstanceOf(InvalidBatonPropertyException.class)
                    .hasMessageContaining("baton.backlog-caps.reports")
                    .hasMessageContaining("1..100000000"));
  }
}
