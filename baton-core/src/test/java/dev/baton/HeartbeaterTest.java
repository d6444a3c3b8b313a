package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.internal.db.ClaimedJob;
import dev.baton.internal.db.HolderStore;
import dev.baton.internal.db.SchemaName;
import dev.baton.internal.held.HeldJobs;
import dev.baton.internal.held.NodeCounters;
import dev.baton.internal.held.RunningJob;
import dev.baton.internal.held.StopReason;
import dev.baton.internal.lease.Heartbeater;
import dev.baton.testing.Fixture;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The heartbeater, driven by hand with {@code beatOnce()}. */
class HeartbeaterTest {

  record Beat(int n) implements JobArgs {}

  @Test
  void extendsHeldLeasesAndReportsALostJobOnce() {
    try (Fixture f = new Fixture()) {
      HolderStore store = new HolderStore(SchemaName.of(f.schema()));
      f.reader().enqueue(new Beat(1));
      f.reader().enqueue(new Beat(2));
      var claimed =
          store.claim(
              f.dataSource(),
              new HolderStore.ClaimParams(
                  "default",
                  2,
                  "n",
                  Duration.ofSeconds(5),
                  new String[0],
                  new Long[0],
                  Duration.ofMinutes(1)));
      HeldJobs held = new HeldJobs();
      NodeCounters counters = new NodeCounters();
      RunningJob kept = track(held, claimed.get(0));
      RunningJob lost = track(held, claimed.get(1));
      Heartbeater hb =
          new Heartbeater(
              f.dataSource(),
              store,
              held,
              counters,
              new Heartbeater.Settings(Duration.ofMinutes(10), Duration.ofSeconds(1)));

      // Another holder takes the second job.
      f.execute("UPDATE %s.job SET fence = fence + 1000 WHERE id = " + lost.id());
      hb.beatOnce();
      hb.beatOnce();

      assertThat(f.job(kept.id()).leaseExpiresAt())
          .isAfter(java.time.Instant.now().plus(Duration.ofMinutes(9)));
      assertThat(lost.stopReason()).isEqualTo(StopReason.LOST);
      assertThat(kept.stopReason()).isNull();
      assertThat(counters.leasesLost.sum()).isEqualTo(1);
    }
  }

  private static RunningJob track(HeldJobs held, ClaimedJob job) {
    RunningJob rj = new RunningJob(job, () -> {}, System.nanoTime(), Duration.ZERO);
    held.add(rj);
    return rj;
  }
}
