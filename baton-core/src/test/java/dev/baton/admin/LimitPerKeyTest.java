package dev.baton.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.BatonException;
import dev.baton.InvalidConfigException;
import dev.baton.testing.Fixture;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link BatonAdmin#limitPerKey}: a queue's concurrency limit per key and rate limit per key move
 * to another args field together, which one call each cannot do (the database keeps one key field
 * per queue), and the queue's key index follows the field.
 */
class LimitPerKeyTest {

  @Test
  void bothLimitsPerKeyMoveToAnotherFieldInOneCall() {
    try (Fixture f = new Fixture()) {
      BatonAdmin admin = new BatonAdmin(f.dataSource(), f.schema());
      admin.limitConcurrencyPerKey("sync", "customer", 2, "t");
      admin.limitRatePerKey("sync", "customer", 5, Duration.ofMinutes(1), "t");
      assertThatThrownBy(() -> admin.limitConcurrencyPerKey("sync", "account", 1, "t"))
          .as("one limit at a time would leave two fields")
          .isInstanceOf(BatonException.class);

      admin.limitPerKey("sync", "account", 1, 4, Duration.ofSeconds(30), "t");

      assertThat(
              f.count(
                  "SELECT count(*) FROM %s.queue WHERE name = 'sync' AND key_field = 'account'"
                      + " AND key_limit = 1 AND rate_key_field = 'account' AND rate_limit = 4"
                      + " AND rate_period_ms = 30000"))
          .isEqualTo(1);
      assertThat(
              f.count(
                  "SELECT count(*) FROM pg_indexes WHERE schemaname = '"
                      + f.schema()
                      + "' AND indexname LIKE 'job\\_key\\_%' AND indexdef LIKE '%''account''%'"))
          .as("the key index on the new field")
          .isEqualTo(1);
      assertThat(
              f.count(
                  "SELECT count(*) FROM pg_indexes WHERE schemaname = '"
                      + f.schema()
                      + "' AND indexname LIKE 'job\\_key\\_%'"))
          .as("and no other")
          .isEqualTo(1);
    }
  }

  @Test
  void badValuesAreRefusedNamingWhatWasExpected() {
    try (Fixture f = new Fixture()) {
      BatonAdmin admin = new BatonAdmin(f.dataSource(), f.schema());
      assertThatThrownBy(() -> admin.limitPerKey("sync", "", 1, 4, Duration.ofSeconds(1), "t"))
          .isInstanceOf(InvalidConfigException.class)
          .hasMessageContaining("key field of queue \"sync\" must be 1-128 characters");
      assertThatThrownBy(() -> admin.limitPerKey("sync", "a", 0, 4, Duration.ofSeconds(1), "t"))
          .isInstanceOf(InvalidConfigException.class)
          .hasMessageContaining("concurrency limit per key of queue \"sync\" must be 1..1000000");
      assertThatThrownBy(() -> admin.limitPerKey("sync", "a", 1, 4, Duration.ZERO, "t"))
          .isInstanceOf(InvalidConfigException.class)
          .hasMessageContaining("rate limit period of queue \"sync\" must be 1 ms..1 day");
      assertThat(f.count("SELECT count(*) FROM %s.queue WHERE name = 'sync'")).isZero();
    }
  }
}
