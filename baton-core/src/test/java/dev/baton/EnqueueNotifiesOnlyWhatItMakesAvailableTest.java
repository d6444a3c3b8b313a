package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.internal.db.SchemaName;
import dev.baton.testing.Fixture;
import dev.baton.testing.Notifications;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A single enqueue notifies its queue's listeners when, and only when, it inserts a job that is
 * available now: not for a job scheduled for later, not for an enqueue whose idempotency key
 * matched an existing job, not for one claimed in its insert by the enqueuing node. Notifications
 * reach a listener in commit order, so a last enqueue on a marker queue closes the list.
 */
class EnqueueNotifiesOnlyWhatItMakesAvailableTest {

  record Ping(int n) implements JobArgs {}

  @Test
  void onlyAnInsertedAvailableJobNotifiesItsQueue() throws Exception {
    try (Fixture f = new Fixture();
        Connection listener = f.dataSource().getConnection()) {
      String channel = SchemaName.of(f.schema()).insertChannel();
      try (Statement st = listener.createStatement()) {
        st.execute("LISTEN \"" + channel + "\"");
      }
      Baton baton = f.reader();
      baton.enqueue(
          new Ping(1),
          EnqueueOptions.builder()
              .queue("later")
              .runAt(Instant.now().plus(Duration.ofHours(1)))
              .build());
      EnqueueOptions keyed = EnqueueOptions.builder().queue("keyed").idempotencyKey("k").build();
      assertThat(baton.enqueue(new Ping(2), keyed).existing()).isFalse();
      assertThat(baton.enqueue(new Ping(3), keyed).existing()).isTrue();
      baton.enqueue(new Ping(4), EnqueueOptions.builder().queue("marker").build());

      List<String> heard = Notifications.until(listener, "marker");
      assertThat(heard).containsExactly("keyed", "marker");
      assertThat(f.count("SELECT count(*) FROM %s.job WHERE state = 'scheduled'")).isEqualTo(1);
    }
  }

  @Test
  void anEnqueueClaimedInItsInsertNotifiesNothingAndOneLeftAvailableDoes() throws Exception {
    try (Fixture f = new Fixture();
        Connection listener = f.dataSource().getConnection()) {
      String channel = SchemaName.of(f.schema()).insertChannel();
      try (Statement st = listener.createStatement()) {
        st.execute("LISTEN \"" + channel + "\"");
      }
      Baton baton =
          f.start(
              f.config().queue("mine", 2).pollOnly(true).pollInterval(Duration.ofHours(1)).build(),
              b -> b.handler(Ping.class, (ctx, a) -> {}));
      EnqueueOptions mine = EnqueueOptions.builder().queue("mine").build();
      assertThat(baton.enqueue(new Ping(1), mine).job().state()).isEqualTo(JobState.RUNNING);
      baton.pauseQueue("mine");
      assertThat(baton.enqueue(new Ping(2), mine).job().state()).isEqualTo(JobState.AVAILABLE);
      f.reader().enqueue(new Ping(3), EnqueueOptions.builder().queue("marker").build());

      List<String> heard = Notifications.until(listener, "marker");
      assertThat(heard).containsExactly("mine", "marker");
    }
  }
}
