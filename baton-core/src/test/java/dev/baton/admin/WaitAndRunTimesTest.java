package dev.baton.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.baton.testing.Fixture;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link BatonAdmin#latencies}: wait and run time percentiles per queue and kind of the latest
 * completions of a window, at most a sample of them, newest first.
 */
class WaitAndRunTimesTest {
  private static Fixture f;
  private static BatonAdmin admin;

  @BeforeAll
  static void schema() {
    f = new Fixture();
    admin = new BatonAdmin(f.dataSource(), f.schema());
    // 100 completions of "fast": waited g ms, ran 2*g ms, finished g seconds ago (g = 1..100);
    // one of "old" finished two hours ago.
    f.execute(
        "INSERT INTO %s.job (queue, kind, state, attempt, scheduled_at, attempted_at, finalized_at)"
            + " SELECT 'lat', 'fast', 'completed', 1, t - (3 * g) * interval '1 millisecond',"
            + " t - (2 * g) * interval '1 millisecond', t"
            + " FROM (SELECT g, now() - g * interval '1 second' AS t"
            + " FROM generate_series(1, 100) g) x");
    f.execute(
        "INSERT INTO %s.job (queue, kind, state, attempt, scheduled_at, attempted_at, finalized_at)"
            + " VALUES ('lat', 'old', 'completed', 1, now() - interval '2 hours',"
            + " now() - interval '2 hours', now() - interval '2 hours')");
  }

  @AfterAll
  static void close() {
    f.close();
  }

  @Test
  void percentilesAreOfTheLatestCompletionsOfTheWindow() {
    List<StatsAdmin.Latency> all = admin.latencies(Duration.ofHours(1), 1_000);

    assertThat(all)
        .singleElement()
        .satisfies(
            l -> {
              assertThat(l.kind()).isEqualTo("fast");
              assertThat(l.sampled()).isEqualTo(100);
              assertThat(l.waitTime().p50()).isCloseTo(50.5, within(0.01));
              assertThat(l.runTime().p50()).isCloseTo(101, within(0.01));
              assertThat(l.waitTime().p99()).isCloseTo(99.01, within(0.01));
            });
    // A sample of 10 takes the newest ten: waits of 1..10 ms.
    StatsAdmin.Latency newest = admin.latencies(Duration.ofHours(1), 10).get(0);
    assertThat(newest.sampled()).isEqualTo(10);
    assertThat(newest.waitTime().p50()).isCloseTo(5.5, within(0.01));
    assertThat(admin.latencies(Duration.ofHours(3), 1_000)).hasSize(2);
  }

  @Test
  void aWindowOrSampleOutOfRangeIsRefused() {
    assertThatThrownBy(() -> admin.latencies(Duration.ofDays(8), 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("window must be 1 s..7 days");
    assertThatThrownBy(() -> admin.latencies(Duration.ofHours(1), 0))
        .hasMessageContaining("sample 1..100000");
  }
}
