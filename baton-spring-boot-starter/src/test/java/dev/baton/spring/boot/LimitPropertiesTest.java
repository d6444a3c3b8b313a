package dev.baton.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.admin.BatonAdmin;
import dev.baton.admin.StatsAdmin;
import dev.baton.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code baton.queues.<name>.key-field} with {@code key-limit}, and {@code rate-limit} with {@code
 * rate-period}, set the queue's limit per key and rate limit in the database when the client
 * starts; one of a pair without the other, or a value out of range, fails start-up naming the
 * property, what it must be, and what to do.
 */
class LimitPropertiesTest {
  private static final TestDatabase DB = TestDatabase.get();

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(BatonAutoConfiguration.class))
          .withBean(DataSource.class, () -> DB.dataSource(4));

  @Test
  void limitPropertiesAreSetOnTheQueuesWhenTheClientStarts() {
    String schema = DB.newMigratedSchema();
    runner
        .withPropertyValues(
            "baton.schema=" + schema,
            "baton.queues.sync.concurrency=2",
            "baton.queues.sync.key-field=customer",
            "baton.queues.sync.key-limit=1",
            "baton.queues.mail.concurrency=2",
            "baton.queues.mail.rate-limit=50",
            "baton.queues.mail.rate-period=1s")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              List<StatsAdmin.LimitsInUse> limits = context.getBean(BatonAdmin.class).limitsInUse();
              assertThat(limits)
                  .extracting(
                      StatsAdmin.LimitsInUse::queue,
                      StatsAdmin.LimitsInUse::keyField,
                      StatsAdmin.LimitsInUse::keyLimit,
                      StatsAdmin.LimitsInUse::rateLimit,
                      StatsAdmin.LimitsInUse::ratePeriod)
                  .containsExactly(
                      org.assertj.core.groups.Tuple.tuple(
                          "mail", null, null, 50, Duration.ofSeconds(1)),
                      org.assertj.core.groups.Tuple.tuple("sync", "customer", 1, null, null));
            });
  }

  @Test
  void halfAPairFailsStartUpNamingTheMissingProperty() {
    runner
        .withPropertyValues("baton.enabled=false", "baton.queues.sync.key-limit=1")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .isInstanceOf(InvalidBatonPropertyException.class)
                    .hasMessage(
                        "invalid Baton config: baton.queues.sync.key-field must be a top-level"
                            + " field of the args, as baton.queues.sync.key-limit is set, got null")
                    .satisfies(
                        e ->
                            assertThat(((InvalidBatonPropertyException) e).action())
                                .isEqualTo(
                                    "Set baton.queues.sync.key-field as well, or remove"
                                        + " baton.queues.sync.key-limit.")));
    runner
        .withPropertyValues("baton.enabled=false", "baton.queues.mail.rate-limit=50")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("baton.queues.mail.rate-period must be 1ms..1d")
                    .hasMessageContaining("as baton.queues.mail.rate-limit is set"));
  }

  @Test
  void aValueOutOfRangeFailsStartUpNamingThePropertyAndWhatWasGiven() {
    runner
        .withPropertyValues(
            "baton.enabled=false",
            "baton.queues.mail.rate-limit=50",
            "baton.queues.mail.rate-period=2d")
        .run(
            context ->
                assertThat(rejection(context.getStartupFailure()))
                    .hasMessage(
                        "invalid Baton config: baton.queues.mail.rate-period must be 1 ms..1 day in"
                            + " whole ms, got \"2d\""));
    runner
        .withPropertyValues(
            "baton.enabled=false",
            "baton.queues.sync.key-field=customer",
            "baton.queues.sync.key-limit=0")
        .run(
            context ->
                assertThat(rejection(context.getStartupFailure()))
                    .hasMessage(
                        "invalid Baton config: baton.queues.sync.key-limit must be 1..1000000,"
                            + " got \"0\""));
  }

  private static InvalidBatonPropertyException rejection(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof InvalidBatonPropertyException e) {
        return e;
      }
    }
    throw new AssertionError("no InvalidBatonPropertyException in " + failure, failure);
  }
}
