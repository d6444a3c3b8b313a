package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link BatonConfig#toBuilder()} carries every setting: a config rebuilt from it reads the same in
 * every accessor, and settings derived from the lease stay derived unless they were set.
 */
class ConfigToBuilderTest {

  @Test
  void aConfigRebuiltFromItsBuilderReadsTheSameInEveryAccessor() throws Exception {
    RetryPolicy retry = (attempt, error) -> Duration.ofSeconds(3);
    BatonConfig config =
        BatonConfig.builder()
            .schema("other_schema")
            .nodeId("node-a")
            .queue("mail", 3)
            .queue("reports", 1)
            .kind("send_email", KindConfig.builder().queue("mail").maxAttempts(3).build())
            .lease(Duration.ofSeconds(40))
            .heartbeatInterval(Duration.ofSeconds(7))
            .jobTimeout(Duration.ofMinutes(2))
            .pollInterval(Duration.ofMillis(700))
            .pollOnly(true)
            .claimOnEnqueue(false)
            .maintenanceInterval(Duration.ofSeconds(3))
            .maintenanceEnabled(false)
            .leaderTtl(Duration.ofSeconds(9))
            .maxRescues(4)
            .nodeHeartbeatInterval(Duration.ofSeconds(4))
            .nodeTtl(Duration.ofSeconds(40))
            .cleanInterval(Duration.ofSeconds(50))
            .cleanBatchSize(12)
            .completedRetention(Duration.ofHours(2))
            .cancelledRetention(Duration.ofHours(3))
            .discardedRetention(Duration.ofHours(4))
            .archiveFinished(true)
            .stopTimeout(Duration.ofSeconds(5))
            .maxArgsBytes(1000)
            .maxMetadataBytes(500)
            .allowUnknownKinds(true)
            .knownKinds("a_kind", "b_kind")
            .retryPolicy(retry)
            .completerBatchSize(13)
            .completerCapacity(14)
            .completerFlushDelay(Duration.ofMillis(9))
            .virtualThreads(false)
            .prefetch(15)
            .build();

    BatonConfig rebuilt = config.toBuilder().build();

    int compared = 0;
    for (Method m : BatonConfig.class.getDeclaredMethods()) {
      if (!Modifier.isPublic(m.getModifiers())
          || Modifier.isStatic(m.getModifiers())
          || m.getParameterCount() != 0
          || m.getName().equals("toBuilder")) {
        continue;
      }
      assertThat(m.invoke(rebuilt))
          .as("%s after toBuilder()", m.getName())
          .isEqualTo(m.invoke(config));
      compared++;
    }
    assertThat(compared).isGreaterThan(30);
  }

  @Test
  void settingsDerivedFromTheLeaseFollowANewLease() {
    BatonConfig config = BatonConfig.builder().build();

    BatonConfig shorter = config.toBuilder().lease(Duration.ofSeconds(3)).build();

    assertThat(shorter.heartbeatInterval()).isEqualTo(Duration.ofSeconds(1));
    assertThat(shorter.leaderTtl()).isEqualTo(Duration.ofMillis(2250));
  }

  @Test
  void oneSettingChangesAndTheRestStay() {
    BatonConfig config = BatonConfig.builder().schema("shop").queue("mail", 3).build();

    BatonConfig changed = config.toBuilder().maxRescues(5).build();

    assertThat(changed.maxRescues()).isEqualTo(5);
    assertThat(changed.schema()).isEqualTo("shop");
    assertThat(changed.queues()).isEqualTo(config.queues());
    assertThat(config.maxRescues()).isEqualTo(BatonConfig.DEFAULT_MAX_RESCUES);
  }
}
