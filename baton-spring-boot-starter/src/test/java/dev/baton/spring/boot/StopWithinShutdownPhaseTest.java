package dev.baton.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.test.TestDatabase;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The client's stop fits in Spring's shutdown phase ({@code
 * spring.lifecycle.timeout-per-shutdown-phase}): unset, {@code baton.stop-timeout} is the smaller
 * of Baton's default and half the phase; set at or above the phase, start-up fails naming both.
 */
class StopWithinShutdownPhaseTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(BatonAutoConfiguration.class))
          .withBean(DataSource.class, StopWithinShutdownPhaseTest::dataSource)
          .withPropertyValues("baton.enabled=false");

  @Test
  void anUnsetStopTimeoutIsHalfOfAShortShutdownPhase() {
    runner
        .withPropertyValues("spring.lifecycle.timeout-per-shutdown-phase=4s")
        .run(
            context ->
                assertThat(context.getBean(Baton.class).config().stopTimeout())
                    .isEqualTo(Duration.ofSeconds(2)));
  }

  @Test
  void anUnsetStopTimeoutIsBatonsDefaultInSpringsDefaultPhase() {
    runner.run(
        context ->
            assertThat(context.getBean(Baton.class).config().stopTimeout())
                .isEqualTo(Duration.ofSeconds(10)));
  }

  @Test
  void aStopTimeoutBeyondThePhaseFailsStartupNamingBoth() {
    runner
        .withPropertyValues(
            "spring.lifecycle.timeout-per-shutdown-phase=20s", "baton.stop-timeout=25s")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(new BatonFailureAnalyzer().analyze(context.getStartupFailure()))
                  .satisfies(
                      a -> {
                        assertThat(a.getDescription())
                            .isEqualTo(
                                "Baton rejected baton.stop-timeout: expected less than"
                                    + " spring.lifecycle.timeout-per-shutdown-phase (PT20S),"
                                    + " given \"25s\".");
                        assertThat(a.getAction())
                            .startsWith("Set baton.stop-timeout below")
                            .endsWith("or raise that: Spring waits no longer for the whole stop.");
                      });
            });
  }

  private static DataSource dataSource() {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(TestDatabase.get().jdbcUrl());
    return ds;
  }
}
