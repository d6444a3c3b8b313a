package dev.baton.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testing.Fixture;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link StatsAdmin#limitsInUse()}: every kind of limit a queue has, how much of each is in use,
 * and the jobs that the limits together hold back, from jobs placed in the table by hand.
 */
class LimitsInUseTest {

  // Jobs of queue q: per customer, `running` running and `available` available.
  private static void jobs(Fixture f, String queue, String customer, int running, int available) {
    f.execute(
        "INSERT INTO %s.job (queue, kind, args, state, lease_expires_at, attempt)"
            + " SELECT '"
            + queue
            + "', 'sync', jsonb_build_object('customer', '"
            + customer
            + "'), 'running', now() + interval '1 hour', 1 FROM generate_series(1, "
            + running
            + ")");
    f.execute(
        "INSERT INTO %s.job (queue, kind, args) SELECT '"
            + queue
            + "', 'sync', jsonb_build_object('customer', '"
            + customer
            + "') FROM generate_series(1, "
            + available
            + ")");
  }

  @Test
  void eachKindOfLimitShowsWhatIsInUseAndWhatWaits() {
    try (Fixture f = new Fixture()) {
      BatonAdmin admin = new BatonAdmin(f.dataSource(), f.schema());
      // keyed: acme runs 2 of its limit 2 and has 3 waiting; bob runs 1 and has 4 available
      jobs(f, "sync", "acme", 2, 3);
      jobs(f, "sync", "bob", 1, 4);
      admin.limitConcurrencyPerKey("sync", "customer", 2, "t");
      // rate: 7 starts in the window of 1 hour (and 2 older ones), 10 available
      jobs(f, "mail", "x", 0, 10);
      f.execute(
          "INSERT INTO %s.queue_start (queue, at) SELECT 'mail', now() - interval '1 minute'"
              + " FROM generate_series(1, 7)");
      f.execute(
          "INSERT INTO %s.queue_start (queue, at) SELECT 'mail', now() - interval '2 hours'"
              + " FROM generate_series(1, 2)");
      admin.limitRate("mail", 10, Duration.ofHours(1), "t");
      // queue-wide: 1 running of 3, 5 available
      jobs(f, "pay", "x", 1, 5);
      admin.limitConcurrency("pay", 3, "t");
      jobs(f, "free", "x", 1, 5); // no limit: not listed

      List<StatsAdmin.LimitsInUse> limits = admin.limitsInUse();

      assertThat(limits)
          .extracting(StatsAdmin.LimitsInUse::queue)
          .containsExactly("mail", "pay", "sync");
      StatsAdmin.LimitsInUse mail = limits.get(0);
      assertThat(mail.rateLimit()).isEqualTo(10);
      assertThat(mail.ratePeriod()).isEqualTo(Duration.ofHours(1));
      assertThat(mail.startsInPeriod()).as("starts in the window").isEqualTo(7);
      assertThat(mail.concurrencyLimit()).isNull();
      assertThat(mail.keyLimit()).isNull();
      assertThat(mail.waitingForLimits()).as("10 available, 3 starts left").isEqualTo(7);

      StatsAdmin.LimitsInUse pay = limits.get(1);
      assertThat(pay.concurrencyLimit()).isEqualTo(3);
      assertThat(pay.running()).isEqualTo(1);
      assertThat(pay.rateLimit()).isNull();
      assertThat(pay.startsInPeriod()).isZero();
      assertThat(pay.waitingForLimits()).as("5 available, 2 free").isEqualTo(3);

      StatsAdmin.LimitsInUse sync = limits.get(2);
      assertThat(sync.keyField()).isEqualTo("customer");
      assertThat(sync.keyLimit()).isEqualTo(2);
      assertThat(sync.running()).isEqualTo(3);
      assertThat(sync.available()).isEqualTo(7);
      assertThat(sync.keysRunning()).isEqualTo(2);
      assertThat(sync.keysAtLimit()).as("acme").isEqualTo(1);
      // acme's 3 wait; bob has room for 1 of his 4
      assertThat(sync.waitingForLimits()).isEqualTo(6);
      assertThat(sync.busiestKeys())
          .containsExactly(
              new StatsAdmin.KeyRunning("acme", 2), new StatsAdmin.KeyRunning("bob", 1));
      assertThat(pay.busiestKeys()).isEmpty();

      // every limit together: the fewest admitted counts
      admin.limitConcurrency("sync", 4, "t"); // 1 free of 4
      assertThat(find(admin, "sync").waitingForLimits()).isEqualTo(6);
      admin.limitConcurrency("sync", 10, "t"); // the keys admit fewer
      admin.limitRate("sync", 5, Duration.ofMinutes(1), "t");
      assertThat(find(admin, "sync").waitingForLimits()).isEqualTo(6);
      admin.limitConcurrency("sync", 3, "t"); // none free
      assertThat(find(admin, "sync").waitingForLimits()).isEqualTo(7);

      // at most 5 keys named, the busiest first, ties by key; every key counted
      for (String k : List.of("k1", "k2", "k3", "k4", "k5")) {
        jobs(f, "sync", k, 1, 0);
      }
      jobs(f, "sync", "k0", 2, 0);
      StatsAdmin.LimitsInUse many = find(admin, "sync");
      assertThat(many.keysRunning()).isEqualTo(8);
      assertThat(many.keysAtLimit()).as("acme and k0").isEqualTo(2);
      assertThat(many.busiestKeys())
          .extracting(StatsAdmin.KeyRunning::key)
          .containsExactly("acme", "k0", "bob", "k1", "k2");

      // a rate per key: the busiest key's starts in the window, plus those recorded without a
      // key (which count against every key); other keys keep room, so nothing counts as waiting
      admin.limitRatePerKey("mail", "customer", 10, Duration.ofHours(1), "t");
      f.execute(
          "INSERT INTO %s.queue_start (queue, at, key) SELECT 'mail', now() - interval '1 minute',"
              + " CASE WHEN g <= 4 THEN 'acme' ELSE 'bob' END FROM generate_series(1, 6) g");
      StatsAdmin.LimitsInUse perKey = find(admin, "mail");
      assertThat(perKey.rateKeyField()).isEqualTo("customer");
      assertThat(perKey.startsInPeriod()).as("acme's 4 and the 7 without a key").isEqualTo(11);
      assertThat(perKey.waitingForLimits()).isZero();
      assertThat(find(admin, "pay").rateKeyField()).isNull();
      admin.limitRate("mail", 10, Duration.ofHours(1), "t");
      assertThat(find(admin, "mail").startsInPeriod()).as("the queue's 13").isEqualTo(13);

      // the queue-wide read lists only queue-wide limits
      assertThat(admin.limits())
          .extracting(StatsAdmin.QueueLimit::queue)
          .containsExactly("pay", "sync");
      admin.removeConcurrencyLimitPerKey("sync", "t");
      admin.removeConcurrencyLimit("sync", "t");
      admin.removeRateLimit("sync", "t");
      assertThat(admin.limitsInUse())
          .extracting(StatsAdmin.LimitsInUse::queue)
          .containsExactly("mail", "pay");
    }
  }

  private static StatsAdmin.LimitsInUse find(BatonAdmin admin, String queue) {
    return admin.limitsInUse().stream()
        .filter(l -> l.queue().equals(queue))
        .findFirst()
        .orElseThrow();
  }
}
