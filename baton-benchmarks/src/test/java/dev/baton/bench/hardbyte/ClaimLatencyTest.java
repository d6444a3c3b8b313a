package dev.baton.bench.hardbyte;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ClaimLatencyTest {

  @Test
  void windowIsWholeTicksCoveringThirtySeconds() {
    assertThat(new ClaimLatency(Duration.ofSeconds(5)).window()).isEqualTo(Duration.ofSeconds(30));
    assertThat(new ClaimLatency(Duration.ofSeconds(1)).window()).isEqualTo(Duration.ofSeconds(30));
    assertThat(new ClaimLatency(Duration.ofSeconds(7)).window()).isEqualTo(Duration.ofSeconds(35));
    assertThat(new ClaimLatency(Duration.ofSeconds(60)).window()).isEqualTo(Duration.ofSeconds(60));
  }

  @Test
  void percentilesCoverTheLastWindowOfTicksInMilliseconds() {
    ClaimLatency l = new ClaimLatency(Duration.ofSeconds(10)); // a window of 3 ticks
    for (int i = 1; i <= 100; i++) {
      l.record(i * 1_000L); // 1..100 ms
    }
    ClaimLatency.Snapshot first = l.roll();
    assertThat(first.count()).isEqualTo(100);
    assertThat(first.p50()).isCloseTo(50.0, within(0.1));
    assertThat(first.p95()).isCloseTo(95.0, within(0.1));
    assertThat(first.p99()).isCloseTo(99.0, within(0.1));

    l.record(-5); // a clock step back counts as 0
    assertThat(l.roll().count()).isEqualTo(101);
    assertThat(l.roll().count()).isEqualTo(101);
    ClaimLatency.Snapshot fourth = l.roll(); // the first tick has left the window
    assertThat(fourth.count()).isEqualTo(1);
    assertThat(fourth.p99()).isZero();
    l.roll();
    assertThat(l.roll()).isEqualTo(new ClaimLatency.Snapshot(0, 0, 0, 0));
  }
}
