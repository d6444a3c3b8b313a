package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.admin.BatonAdmin;
import dev.baton.testing.Fixture;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Limits per key and rate limits set in {@link BatonConfig}: stored in the database when the client
 * starts, and obeyed by its claims from the first one on.
 */
class LimitsFromConfigTest {

  record Sync(int n, String customer) implements JobArgs {}

  record Mail(int n) implements JobArgs {}

  @Test
  void limitsPerKeyAndRateLimitsInTheConfigAreSetAtStartAndHold() {
    try (Fixture f = new Fixture()) {
      Baton reader = f.reader();
      // enqueued before the client starts: its first claim must already obey the limits
      for (int i = 0; i < 6; i++) {
        reader.enqueue(
            new Sync(i, i % 2 == 0 ? "acme" : "bob"),
            EnqueueOptions.builder().queue("sync").build());
        reader.enqueue(new Mail(i), EnqueueOptions.builder().queue("mail").build());
      }
      f.start(
          f.config()
              .queue("sync", 6)
              .queue("mail", 6)
              .concurrencyLimitPerKey("sync", "customer", 1)
              .rateLimit("mail", 4, Duration.ofHours(1))
              .build(),
          b ->
              b.handler(Sync.class, (ctx, a) -> Fixture.blockUntilInterrupted())
                  .handler(Mail.class, (ctx, a) -> {}));

      assertThat(
              f.count(
                  "SELECT count(*) FROM %s.queue WHERE name = 'sync' AND key_field = 'customer'"
                      + " AND key_limit = 1"))
          .isEqualTo(1);
      assertThat(
              f.count(
                  "SELECT count(*) FROM %s.queue WHERE name = 'mail' AND rate_limit = 4"
                      + " AND rate_period_ms = 3600000"))
          .isEqualTo(1);
      String runningSync = "SELECT count(*) FROM %s.job WHERE queue = 'sync' AND state = 'running'";
      String completedMail =
          "SELECT count(*) FROM %s.job WHERE queue = 'mail' AND state = 'completed'";
      // one job per customer runs, of 6 slots; 4 mails start in the hour, of 6
      await()
          .atMost(Duration.ofSeconds(15))
          .until(() -> f.count(runningSync) == 2 && f.count(completedMail) == 4);
      await()
          .during(Duration.ofMillis(600))
          .atMost(Duration.ofSeconds(5))
          .until(() -> f.count(runningSync) == 2 && f.count(completedMail) == 4);
      assertThat(
              f.count(
                  "SELECT count(*) FROM (SELECT 1 FROM %s.job WHERE queue = 'sync'"
                      + " AND state = 'running' GROUP BY args ->> 'customer') k"))
          .as("keys running")
          .isEqualTo(2);
    }
  }

  @Test
  void aRateLimitPerKeyInTheConfigIsSetAtStartAndHoldsForEachKey() {
    try (Fixture f = new Fixture()) {
      Baton reader = f.reader();
      // enqueued before the client starts: its first claim must already count per key
      for (int i = 0; i < 8; i++) {
        reader.enqueue(
            new Sync(i, i % 2 == 0 ? "acme" : "bob"),
            EnqueueOptions.builder().queue("sync").build());
      }
      f.start(
          f.config()
              .queue("sync", 8)
              .rateLimitPerKey("sync", "customer", 3, Duration.ofHours(1))
              .build(),
          b -> b.handler(Sync.class, (ctx, a) -> {}));

      assertThat(
              f.count(
                  "SELECT count(*) FROM %s.queue WHERE name = 'sync' AND rate_limit = 3"
                      + " AND rate_period_ms = 3600000 AND rate_key_field = 'customer'"))
          .isEqualTo(1);
      // a queue limited per key, if only in rate, gets its key index (schema version 13) at start
      assertThat(
              f.count(
                  "SELECT count(*) FROM pg_indexes WHERE schemaname = '%s'"
                      + " AND indexname = %s.key_index_name('sync', 'customer')"))
          .isEqualTo(1);
      String completed = "SELECT count(*) FROM %s.job WHERE queue = 'sync' AND state = 'completed'";
      // 3 starts per customer in the hour, of 4 jobs each and 8 slots
      await().atMost(Duration.ofSeconds(15)).until(() -> f.count(completed) == 6);
      await()
          .during(Duration.ofMillis(600))
          .atMost(Duration.ofSeconds(5))
          .until(() -> f.count(completed) == 6);
      assertThat(
              f.count(
                  "SELECT count(*) FROM (SELECT 1 FROM %s.job WHERE queue = 'sync'"
                      + " AND state = 'completed' GROUP BY args ->> 'customer'"
                      + " HAVING count(*) = 3) k"))
          .as("customers with 3 completed")
          .isEqualTo(2);
    }
  }

  @Test
  void aQueueLimitedPerKeyInConcurrencyAndRateMovesBothToAnotherFieldAtStart() {
    try (Fixture f = new Fixture()) {
      BatonAdmin admin = new BatonAdmin(f.dataSource(), f.schema());
      admin.limitConcurrencyPerKey("sync", "customer", 2, "t");
      admin.limitRatePerKey("sync", "customer", 5, Duration.ofMinutes(1), "t");
      // one field for both, in the database as in the config: set one at a time, the row would
      // hold two fields on the way, which the database refuses
      f.start(
          f.config()
              .queue("sync", 2)
              .concurrencyLimitPerKey("sync", "account", 1)
              .rateLimitPerKey("sync", "account", 4, Duration.ofSeconds(30))
              .build(),
          b -> b.handler(Sync.class, (ctx, a) -> {}));
      assertThat(
              f.count(
                  "SELECT count(*) FROM %s.queue WHERE name = 'sync' AND key_field = 'account'"
                      + " AND key_limit = 1 AND rate_key_field = 'account' AND rate_limit = 4"
                      + " AND rate_period_ms = 30000"))
          .isEqualTo(1);
    }
  }

  @Test
  void aLimitPerKeyInTheConfigOnAnotherFieldThanTheDatabasesOtherLimitPerKeyNamesBoth() {
    try (Fixture f = new Fixture()) {
      BatonAdmin admin = new BatonAdmin(f.dataSource(), f.schema());
      admin.limitRatePerKey("sync", "customer", 5, Duration.ofMinutes(1), "t");
      assertThatThrownBy(
              () ->
                  f.start(
                      f.config()
                          .queue("sync", 2)
                          .concurrencyLimitPerKey("sync", "account", 1)
                          .build(),
                      b -> b.handler(Sync.class, (ctx, a) -> {})))
          .isInstanceOf(InvalidConfigException.class)
          .hasMessage(
              "invalid Baton config: concurrencyLimitPerKey field of queue \"sync\" must be the"
                  + " field of the rate limit per key the database holds for the queue"
                  + " (\"customer\"), as a queue limited per key in concurrency and in rate has one"
                  + " key field (set both in the config, or remove the other first), got"
                  + " \"account\"");
      admin.removeRateLimit("sync", "t");
      admin.limitConcurrencyPerKey("sync", "customer", 2, "t");
      assertThatThrownBy(
              () ->
                  f.start(
                      f.config()
                          .queue("sync", 2)
                          .rateLimitPerKey("sync", "account", 4, Duration.ofSeconds(30))
                          .build(),
                      b -> b.handler(Sync.class, (ctx, a) -> {})))
          .isInstanceOf(InvalidConfigException.class)
          .hasMessage(
              "invalid Baton config: rateLimitPerKey field of queue \"sync\" must be the field of"
                  + " the concurrency limit per key the database holds for the queue"
                  + " (\"customer\"), as a queue limited per key in concurrency and in rate has one"
                  + " key field (set both in the config, or remove the other first), got"
                  + " \"account\"");
      assertThat(
              f.count(
                  "SELECT count(*) FROM %s.queue WHERE name = 'sync' AND key_field = 'customer'"
                      + " AND key_limit = 2 AND rate_key_field IS NULL"))
          .as("the database's limits unchanged")
          .isEqualTo(1);
    }
  }

  @Test
  void aRateOfTheWholeQueueAndARatePerKeyReplaceEachOtherInTheBuilder() {
    BatonConfig perKey =
        BatonConfig.builder()
            .rateLimit("mail", 5, Duration.ofSeconds(1))
            .rateLimitPerKey("mail", "customer", 2, Duration.ofMinutes(1))
            .build();
    assertThat(perKey.rateLimits())
        .containsExactly(
            java.util.Map.entry(
                "mail", new BatonConfig.RateLimit(2, Duration.ofMinutes(1), "customer")));
    assertThat(perKey.toBuilder().build().rateLimits()).isEqualTo(perKey.rateLimits());
    assertThat(perKey.toBuilder().rateLimit("mail", 5, Duration.ofSeconds(1)).build().rateLimits())
        .containsExactly(
            java.util.Map.entry("mail", new BatonConfig.RateLimit(5, Duration.ofSeconds(1))));
  }

  @Test
  void aRateLimitPerKeyOnAnotherFieldThanTheConcurrencyLimitPerKeyFailsTheBuild() {
    BatonConfig.Builder b =
        BatonConfig.builder()
            .concurrencyLimitPerKey("sync", "customer", 1)
            .rateLimitPerKey("sync", "account", 5, Duration.ofSeconds(1));
    assertThatThrownBy(b::build)
        .isInstanceOf(InvalidConfigException.class)
        .hasMessage(
            "invalid Baton config: rateLimitPerKey field of queue \"sync\" must be the field of"
                + " its concurrencyLimitPerKey (\"customer\"), as a queue limited per key in"
                + " concurrency and in rate has one key field, got \"account\"");
    // the same field, or a rate of the whole queue, builds
    assertThat(
            b.rateLimitPerKey("sync", "customer", 5, Duration.ofSeconds(1))
                .build()
                .rateLimits()
                .get("sync")
                .argsField())
        .isEqualTo("customer");
    assertThat(
            b.rateLimit("sync", 5, Duration.ofSeconds(1))
                .build()
                .rateLimits()
                .get("sync")
                .argsField())
        .isNull();
  }

  @Test
  void aBadLimitInTheConfigNamesTheSettingAndWhatItMustBe() {
    BatonConfig.Builder b = BatonConfig.builder();
    assertThatThrownBy(() -> b.concurrencyLimitPerKey("sync", "customer", 0))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessage(
            "invalid Baton config: concurrencyLimitPerKey of queue \"sync\" must be 1..1000000,"
                + " got 0");
    assertThatThrownBy(() -> b.concurrencyLimitPerKey("sync", "", 1))
        .hasMessage(
            "invalid Baton config: concurrencyLimitPerKey field of queue \"sync\" must be 1-128"
                + " characters, got \"\"");
    assertThatThrownBy(() -> b.rateLimit("mail", 0, Duration.ofSeconds(1)))
        .hasMessage("invalid Baton config: rateLimit of queue \"mail\" must be 1..1000000, got 0");
    assertThatThrownBy(() -> b.rateLimit("mail", 5, Duration.ofDays(2)))
        .hasMessage(
            "invalid Baton config: rateLimit period of queue \"mail\" must be 1 ms..1 day in whole"
                + " ms, got PT48H");
    assertThatThrownBy(() -> b.rateLimit("mail", 5, Duration.ofNanos(1_500_000)))
        .hasMessageContaining("got PT0.0015S");
    assertThatThrownBy(() -> b.rateLimit("bad name", 5, Duration.ofSeconds(1)))
        .isInstanceOf(InvalidConfigException.class);
    assertThatThrownBy(() -> b.rateLimitPerKey("mail", "", 5, Duration.ofSeconds(1)))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessage(
            "invalid Baton config: rateLimitPerKey field of queue \"mail\" must be 1-128"
                + " characters, got \"\"");
    assertThatThrownBy(() -> b.rateLimitPerKey("mail", "x".repeat(129), 5, Duration.ofSeconds(1)))
        .hasMessageContaining("rateLimitPerKey field of queue \"mail\" must be 1-128 characters");
    assertThatThrownBy(() -> b.rateLimitPerKey("mail", "customer", 0, Duration.ofSeconds(1)))
        .hasMessage(
            "invalid Baton config: rateLimitPerKey of queue \"mail\" must be 1..1000000, got 0");
    assertThatThrownBy(() -> b.rateLimitPerKey("mail", "customer", 5, Duration.ofDays(2)))
        .hasMessage(
            "invalid Baton config: rateLimitPerKey period of queue \"mail\" must be 1 ms..1 day"
                + " in whole ms, got PT48H");
    assertThatThrownBy(() -> b.rateLimitPerKey("mail", "customer", 5, Duration.ZERO))
        .hasMessageContaining("got PT0S");
    assertThatThrownBy(() -> b.rateLimitPerKey("bad name", "customer", 5, Duration.ofSeconds(1)))
        .isInstanceOf(InvalidConfigException.class);
    BatonConfig config =
        b.concurrencyLimitPerKey("sync", "customer", 2)
            .rateLimit("mail", 5, Duration.ofSeconds(1))
            .build();
    assertThat(config.concurrencyLimitsPerKey())
        .containsEntry("sync", new BatonConfig.KeyLimit("customer", 2));
    assertThat(config.toBuilder().build().rateLimits())
        .containsEntry("mail", new BatonConfig.RateLimit(5, Duration.ofSeconds(1)));
  }
}
