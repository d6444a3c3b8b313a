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
 * rate-period} (and {@code rate-key-field} for a rate per key), set the queue's limit per key and
 * rate limit in the database when the client starts; one of a pair without the other, two key
 * fields, or a value out of range, fails start-up naming the property, what it must be, and what to
 * do.
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
            "baton.queues.mail.rate-period=1s",
            "baton.queues.news.concurrency=2",
            "baton.queues.news.key-field=customer",
            "baton.queues.news.key-limit=2",
            "baton.queues.news.rate-key-field=customer",
            "baton.queues.news.rate-limit=10",
            "baton.queues.news.rate-period=1m")
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
                      StatsAdmin.LimitsInUse::ratePeriod,
                      StatsAdmin.LimitsInUse::rateKeyField)
                  .containsExactly(
                      org.assertj.core.groups.Tuple.tuple(
                          "mail", null, null, 50, Duration.ofSeconds(1), null),
                      org.assertj.core.groups.Tuple.tuple(
                          "news", "customer", 2, 10, Duration.ofMinutes(1), "customer"),
                      org.assertj.core.groups.Tuple.tuple("sync", "customer", 1, null, null, null));
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
  void aRateKeyFieldWithoutItsRateOrOnAnotherFieldThanKeyFieldFailsStartUp() {
    runner
        .withPropertyValues("baton.enabled=false", "baton.queues.news.rate-key-field=customer")
        .run(
            context ->
                assertThat(rejection(context.getStartupFailure()))
                    .hasMessage(
                        "invalid Baton config: baton.queues.news.rate-limit must be 1..1000000, as"
                            + " baton.queues.news.rate-key-field is set, got null")
                    .satisfies(
                        e ->
                            assertThat(e.action())
                                .isEqualTo(
                                    "Set baton.queues.news.rate-limit as well, or remove"
                                        + " baton.queues.news.rate-key-field.")));
    runner
        .withPropertyValues(
            "baton.enabled=false",
            "baton.queues.news.rate-key-field=customer",
            "baton.queues.news.rate-limit=10")
        .run(
            context ->
                assertThat(rejection(context.getStartupFailure()))
                    .hasMessageContaining("baton.queues.news.rate-period must be 1ms..1d"));
    runner
        .withPropertyValues(
            "baton.enabled=false",
            "baton.queues.news.key-field=customer",
            "baton.queues.news.key-limit=1",
            "baton.queues.news.rate-key-field=account",
            "baton.queues.news.rate-limit=10",
            "baton.queues.news.rate-period=1m")
        .run(
            context ->
                assertThat(rejection(context.getStartupFailure()))
                    .hasMessage(
                        "invalid Baton config: baton.queues.news.rate-key-field must be the same"
                            + " as baton.queues.news.key-field (\"customer\"), as a queue limited"
                            + " per key in concurrency and in rate has one key field, got"
                            + " \"account\"")
                    .satisfies(
                        e ->
                            assertThat(e.action())
                                .isEqualTo(
                                    "Set baton.queues.news.rate-key-field and"
                                        + " baton.queues.news.key-field to one field, or remove"
                                        + " one of them.")));
    runner
        .withPropertyValues(
            "baton.enabled=false",
            "baton.queues.news.rate-key-field=" + "x".repeat(129),
            "baton.queues.news.rate-limit=10",
            "baton.queues.news.rate-period=1m")
        .run(
            context ->
                assertThat(rejection(context.getStartupFailure()))
                    .hasMessageStartingWith(
                        "invalid Baton config: baton.queues.news.rate-key-field must be 1-128"
                            + " characters, got \"xxx"));
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
