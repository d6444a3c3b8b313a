package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.testing.Fixture;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Invariant 9: bad input (unknown kind, args that don't parse, oversized args, bad identifiers in
 * config) gets a clear error naming what was wrong and what was expected, and nothing else is lost
 * or blocked because of it.
 */
class BadInputGetsClearErrorTest {

  record Known(int n) implements JobArgs {}

  record Unknown(int n) implements JobArgs {}

  @JobKind("typed")
  record TypedAsText(String count) implements JobArgs {}

  @JobKind("typed")
  record TypedAsNumber(int count) implements JobArgs {}

  record Big(String blob) implements JobArgs {}

  @Test
  void unknownKindIsRejectedAtEnqueueByDefault() {
    try (Fixture f = new Fixture()) {
      Baton baton =
          Baton.builder(f.dataSource())
              .config(f.config().build())
              .handler(Known.class, (ctx, a) -> {})
              .build();
      assertThatThrownBy(() -> baton.enqueue(new Unknown(1)))
          .isInstanceOf(UnknownKindException.class)
          .hasMessageContaining("kind=unknown")
          .hasMessageContaining("no handler is registered")
          .hasMessageContaining("knownKinds");
      assertThat(f.count("SELECT count(*) FROM %s.job")).isZero();
      // Declared kinds are accepted without a handler.
      Baton producerOnly =
          Baton.builder(f.dataSource())
              .config(f.config().knownKinds(Unknown.class).build())
              .build();
      assertThat(producerOnly.enqueue(new Unknown(1)).existing()).isFalse();
    }
  }

  @Test
  void unknownKindAtClaimTimeIsRecordedAndRetriedWithoutBlockingOthers() {
    try (Fixture f = new Fixture()) {
      long unknown = f.reader().enqueue(new Unknown(1)).job().id();
      long known = f.reader().enqueue(new Known(2)).job().id();
      f.start(
          f.config()
              .nodeId("worker-1")
              .queue("default", 2)
              .retryPolicy((attempt, e) -> Duration.ofMinutes(10))
              .build(),
          b -> b.handler(Known.class, (ctx, a) -> {}));
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> f.job(known).state() == JobState.COMPLETED);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> f.job(unknown).state() == JobState.RETRYABLE);
      Job job = f.job(unknown);
      assertThat(job.errors())
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.error()).isEqualTo("unknown_kind");
                assertThat(e.message())
                    .contains("no handler is registered for kind \"unknown\"")
                    .contains("worker-1");
              });
    }
  }

  @Test
  void argsThatDoNotParseAreDiscardedWithTheReasonAndOthersRun() {
    try (Fixture f = new Fixture()) {
      long bad = f.reader().enqueue(new TypedAsText("many")).job().id();
      long good = f.reader().enqueue(new TypedAsText("12")).job().id();
      f.start(
          f.config().queue("default", 2).build(),
          b -> b.handler(TypedAsNumber.class, (ctx, a) -> {}));
      await().atMost(Duration.ofSeconds(10)).until(() -> f.job(good).state() == JobState.COMPLETED);
      await().atMost(Duration.ofSeconds(10)).until(() -> f.job(bad).state() == JobState.DISCARDED);
      Job job = f.job(bad);
      assertThat(job.attempt()).isEqualTo(1);
      assertThat(job.errors())
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.error()).isEqualTo("invalid_args");
                assertThat(e.message())
                    .contains(TypedAsNumber.class.getName())
                    .contains("many")
                    .contains("no retry can fix them");
              });
    }
  }

  @Test
  void oversizedArgsAreRejectedAtEnqueueAndNothingOfTheCallIsWritten() {
    try (Fixture f = new Fixture()) {
      Baton baton =
          Baton.builder(f.dataSource())
              .config(f.config().maxArgsBytes(1024).allowUnknownKinds(true).build())
              .build();
      String blob = "x".repeat(2000);
      assertThatThrownBy(() -> baton.enqueue(new Big(blob)))
          .isInstanceOf(InvalidJobException.class)
          .hasMessageContaining("kind=big")
          .hasMessageContaining("over the limit of 1024")
          .hasMessageContaining("maxArgsBytes");
      assertThatThrownBy(
              () ->
                  baton.enqueueMany(
                      List.of(JobRequest.of(new Big("ok")), JobRequest.of(new Big(blob)))))
          .isInstanceOf(InvalidJobException.class)
          .hasMessageContaining("request 1");
      assertThat(f.count("SELECT count(*) FROM %s.job")).isZero();
      assertThat(baton.enqueue(new Big("small")).existing()).isFalse();
    }
  }

  @Test
  void badIdentifiersAndValuesInConfigAreRejectedWhenBuilt() {
    assertThatThrownBy(() -> BatonConfig.builder().schema("Bad-Name"))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("schema")
        .hasMessageContaining("lower-case letters")
        .hasMessageContaining("\"Bad-Name\"");
    assertThatThrownBy(() -> BatonConfig.builder().schema("x\"; DROP TABLE job; --"))
        .isInstanceOf(InvalidConfigException.class);
    assertThatThrownBy(() -> BatonConfig.builder().queue("mail queue", 4))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("queue name")
        .hasMessageContaining("\"mail queue\"");
    assertThatThrownBy(() -> BatonConfig.builder().queue("mail", 0))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("concurrency of queue \"mail\"")
        .hasMessageContaining("1..10000");
    assertThatThrownBy(() -> BatonConfig.builder().lease(Duration.ofMillis(10)))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("lease");
    assertThatThrownBy(
            () ->
                BatonConfig.builder()
                    .lease(Duration.ofSeconds(1))
                    .heartbeatInterval(Duration.ofSeconds(2))
                    .build())
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("heartbeatInterval")
        .hasMessageContaining("shorter than the lease");
    assertThatThrownBy(() -> EnqueueOptions.builder().queue("no/slash"))
        .isInstanceOf(InvalidJobException.class)
        .hasMessageContaining("queue");
    assertThatThrownBy(() -> EnqueueOptions.builder().priority(10))
        .isInstanceOf(InvalidJobException.class)
        .hasMessageContaining("priority must be 0..9");
    assertThatThrownBy(() -> EnqueueOptions.builder().idempotencyKey(" "))
        .isInstanceOf(InvalidJobException.class)
        .hasMessageContaining("idempotencyKey");
  }
}
