package dev.baton.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.BatonException;
import dev.baton.testing.Fixture;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link BatonAdmin#removeRateLimit}: a queue's recorded starts go with its rate limit, in the same
 * transaction (both or neither), so that a rate set again later starts from an empty window; other
 * queues' starts stay.
 */
class RateLimitRemovalTest {

  @Test
  void removingARateLimitDeletesTheQueuesRecordedStarts() {
    try (Fixture f = new Fixture()) {
      BatonAdmin admin = new BatonAdmin(f.dataSource(), f.schema());
      admin.limitRatePerKey("mail", "customer", 5, Duration.ofHours(1), "t");
      admin.limitRate("sms", 5, Duration.ofHours(1), "t");
      f.execute(
          "INSERT INTO %s.queue_start (queue, at, key) SELECT 'mail', now(), 'acme'"
              + " FROM generate_series(1, 4)");
      f.execute(
          "INSERT INTO %s.queue_start (queue, at) SELECT q, now()"
              + " FROM unnest(ARRAY['mail', 'sms', 'sms']) q");

      admin.removeRateLimit("mail", "t");

      assertThat(f.count("SELECT count(*) FROM %s.queue_start WHERE queue = 'mail'")).isZero();
      assertThat(f.count("SELECT count(*) FROM %s.queue_start WHERE queue = 'sms'"))
          .as("another queue's starts")
          .isEqualTo(2);
      assertThat(
              f.count("SELECT count(*) FROM %s.queue WHERE name = 'mail' AND rate_limit IS NULL"))
          .isEqualTo(1);
      // set again: the window is empty, nothing of the removed rate counts
      admin.limitRate("mail", 5, Duration.ofHours(1), "t");
      assertThat(
              admin.limitsInUse().stream()
                  .filter(l -> l.queue().equals("mail"))
                  .findFirst()
                  .orElseThrow()
                  .startsInPeriod())
          .isZero();
      // removing a rate that is not set, or of a queue without a row, changes nothing
      admin.removeRateLimit("mail", "t");
      admin.removeRateLimit("mail", "t");
      admin.removeRateLimit("none", "t");
      assertThat(f.count("SELECT count(*) FROM %s.queue_start WHERE queue = 'sms'")).isEqualTo(2);
    }
  }

  @Test
  void aRemovalWhoseStartsCannotBeDeletedLeavesTheRateLimitSet() {
    try (Fixture f = new Fixture()) {
      BatonAdmin admin = new BatonAdmin(f.dataSource(), f.schema());
      admin.limitRate("mail", 5, Duration.ofHours(1), "t");
      f.execute("INSERT INTO %s.queue_start (queue, at) SELECT 'mail', now()");
      // the deletion of the starts fails: the removal of the limit must not commit without it
      f.execute(
          "CREATE FUNCTION %s.refuse() RETURNS trigger LANGUAGE plpgsql AS"
              + " $$ BEGIN RAISE EXCEPTION 'starts kept'; END $$");
      f.execute(
          "CREATE TRIGGER refuse BEFORE DELETE ON %s.queue_start"
              + " FOR EACH STATEMENT EXECUTE FUNCTION %s.refuse()");

      assertThatThrownBy(() -> admin.removeRateLimit("mail", "t"))
          .isInstanceOf(BatonException.class)
          .hasMessageContaining("starts kept");

      assertThat(f.count("SELECT count(*) FROM %s.queue WHERE name = 'mail' AND rate_limit = 5"))
          .isEqualTo(1);
      assertThat(f.count("SELECT count(*) FROM %s.queue_start WHERE queue = 'mail'")).isEqualTo(1);
    }
  }
}
