package dev.baton.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.InvalidConfigException;
import dev.baton.JobArgs;
import dev.baton.LeaderInfo;
import dev.baton.NodeInfo;
import dev.baton.QueueInfo;
import dev.baton.internal.db.HolderStore;
import dev.baton.internal.db.SchemaName;
import dev.baton.testing.Fixture;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The cluster through the public client: the node registry, one leader among clients and a
 * hand-over at once when the leader stops, and queues paused and resumed for every node.
 */
class ClusterClientTest {

  record Tick(int n) implements JobArgs {}

  @Test
  void clientsRegisterWhileRunningAndDeregisterAtStop() {
    try (Fixture f = new Fixture()) {
      Baton a =
          f.start(
              f.config().nodeId("node-a").queue("mail", 2).build(),
              b -> b.handler(Tick.class, (ctx, args) -> {}));
      Baton b = f.start(f.config().nodeId("node-b").maintenanceEnabled(false).build(), x -> {});

      List<NodeInfo> nodes = f.reader().nodes();
      assertThat(nodes).extracting(NodeInfo::id).containsExactly("node-a", "node-b");
      NodeInfo na = nodes.get(0);
      assertThat(na.queues()).containsExactly("mail");
      assertThat(na.pid()).isEqualTo(ProcessHandle.current().pid());
      assertThat(nodes.get(1).queues()).as("b works no queue").isEmpty();

      assertThat(a.isLeader()).isTrue();
      assertThat(b.isLeader()).as("maintenanceEnabled(false) never leads").isFalse();

      a.stop();
      assertThat(f.reader().nodes()).extracting(NodeInfo::id).containsExactly("node-b");
      b.stop();
      assertThat(f.reader().nodes()).isEmpty();
    }
  }

  @Test
  void whenTheLeaderStopsAnotherClientTakesOverWithoutWaitingForTheLease() {
    try (Fixture f = new Fixture()) {
      // A lease of 3 minutes, so elections every minute: without the resign notification the
      // hand-over would take up to that long.
      Baton first =
          f.start(f.config().nodeId("first").leaderTtl(Duration.ofMinutes(3)).build(), b -> {});
      Baton second =
          f.start(f.config().nodeId("second").leaderTtl(Duration.ofMinutes(3)).build(), b -> {});
      assertThat(first.isLeader()).isTrue();
      assertThat(second.isLeader()).isFalse();
      long term = f.reader().leader().orElseThrow().term();

      first.stop();

      await().atMost(Duration.ofSeconds(10)).until(second::isLeader);
      LeaderInfo now = f.reader().leader().orElseThrow();
      assertThat(now.nodeId()).isEqualTo("second");
      assertThat(now.term()).isGreaterThan(term);
    }
  }

  @Test
  void aPausedQueueIsClaimedByNoNodeAndResumingWakesThem() {
    try (Fixture f = new Fixture()) {
      AtomicInteger ran = new AtomicInteger();
      f.reader().pauseQueue("paused-q");
      f.reader().pauseQueue("paused-q"); // pausing twice is fine
      assertThat(f.reader().queues())
          .filteredOn(q -> q.name().equals("paused-q"))
          .singleElement()
          .satisfies(q -> assertThat(q.paused()).isTrue());

      // Poll once an hour: only the resume notification can wake the producer in time.
      Baton worker =
          f.start(
              f.config().queue("paused-q", 4).pollInterval(Duration.ofHours(1)).build(),
              b -> b.handler(Tick.class, (ctx, args) -> ran.incrementAndGet()));
      for (int i = 0; i < 5; i++) {
        f.reader()
            .enqueue(new Tick(i), dev.baton.EnqueueOptions.builder().queue("paused-q").build());
      }
      // The claim statement itself refuses a paused queue, whatever a node's producer does.
      HolderStore store = new HolderStore(SchemaName.of(f.schema()));
      assertThat(
              store.claim(
                  f.dataSource(),
                  new HolderStore.ClaimParams(
                      "paused-q",
                      10,
                      "probe",
                      Duration.ofSeconds(30),
                      new String[0],
                      new Long[0],
                      Duration.ofMinutes(1))))
          .isEmpty();
      assertThat(ran).hasValue(0);
      assertThat(f.count("SELECT count(*) FROM %s.job WHERE state = 'available'")).isEqualTo(5);

      assertThat(f.reader().resumeQueue("paused-q")).isTrue();
      assertThat(f.reader().resumeQueue("paused-q")).as("not paused any more").isFalse();
      await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(ran).hasValue(5));
      assertThat(f.reader().queues())
          .filteredOn(q -> q.name().equals("paused-q"))
          .extracting(QueueInfo::paused)
          .containsExactly(false);
      worker.stop();
    }
  }

  @Test
  void pausingABadQueueNameSaysWhatIsExpected() {
    try (Fixture f = new Fixture()) {
      assertThatThrownBy(() -> f.reader().pauseQueue("no spaces"))
          .isInstanceOf(InvalidConfigException.class)
          .hasMessageContaining("queue name")
          .hasMessageContaining("1-64 characters");
    }
  }
}
