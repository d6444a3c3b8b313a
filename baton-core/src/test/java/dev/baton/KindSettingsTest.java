package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.testing.Fixture;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A kind's settings (timeout, retry policy, max attempts, queue) reach its jobs from the config,
 * from {@link KindSettings} on the args or the handler class, and from a timeout given at
 * registration, in that order of precedence (registration, config, handler class, args class); an
 * enqueue's own options win over all of them.
 */
class KindSettingsTest {

  record Plain(int n) implements JobArgs {}

  @KindSettings(
      queue = "annotated",
      maxAttempts = 7,
      timeout = "20ms",
      retryBase = "2h",
      retryCap = "2h")
  record Annotated(int n) implements JobArgs {}

  @KindSettings(timeout = "20ms", retryBase = "3h", retryCap = "3h")
  static final class AnnotatedHandler implements JobHandler<Plain> {
    @Override
    public void work(JobContext ctx, Plain args) throws Exception {
      Fixture.blockUntilInterrupted();
    }
  }

  private static final RetryPolicy FOUR_HOURS = (attempt, error) -> Duration.ofHours(4);

  @Test
  void configSettingsOfAKindReachItsEnqueuesAndItsHandler() {
    try (Fixture f = new Fixture()) {
      BatonConfig config =
          f.config()
              .kind(
                  Plain.class,
                  KindConfig.builder()
                      .queue("mail")
                      .maxAttempts(3)
                      .timeout(Duration.ofMillis(20))
                      .retryPolicy(FOUR_HOURS)
                      .build())
              .build();
      Baton baton =
          Baton.builder(f.dataSource())
              .config(config)
              .handler(Plain.class, (ctx, a) -> Fixture.blockUntilInterrupted())
              .build();

      Job job = baton.enqueue(new Plain(1)).job();
      assertThat(job.queue()).isEqualTo("mail");
      assertThat(job.maxAttempts()).isEqualTo(3);

      Instant now = Instant.now();
      List<JobRun> runs = Drain.run(baton, "mail", now);
      assertThat(runs).singleElement().extracting(JobRun::state).isEqualTo(JobState.RETRYABLE);
      Job after = f.job(job.id());
      assertThat(after.errors())
          .singleElement()
          .satisfies(e -> assertThat(e.toString()).contains("timeout"));
      fourHours(Duration.between(now, after.scheduledAt()));
    }
  }

  @Test
  void optionsOfTheEnqueueWinOverTheKindsSettings() {
    try (Fixture f = new Fixture()) {
      Baton baton =
          Baton.builder(f.dataSource())
              .config(
                  f.config()
                      .allowUnknownKinds(true)
                      .kind("plain", KindConfig.builder().queue("mail").maxAttempts(3).build())
                      .build())
              .build();

      Job job =
          baton
              .enqueue(
                  new Plain(1), EnqueueOptions.builder().queue("default").maxAttempts(20).build())
              .job();

      assertThat(job.queue()).isEqualTo("default");
      assertThat(job.maxAttempts()).isEqualTo(20);
    }
  }

  @Test
  void annotationOnTheArgsClassSetsTheKindEvenWhereOnlyEnqueued() {
    try (Fixture f = new Fixture()) {
      Job job = f.reader().enqueue(new Annotated(1)).job();

      assertThat(job.queue()).isEqualTo("annotated");
      assertThat(job.maxAttempts()).isEqualTo(7);
    }
  }

  @Test
  void annotationOnTheHandlerClassSetsItsTimeoutAndRetryPolicy() {
    try (Fixture f = new Fixture()) {
      Baton baton =
          Baton.builder(f.dataSource())
              .config(f.config().build())
              .handler(Plain.class, new AnnotatedHandler())
              .build();
      long id = baton.enqueue(new Plain(1)).id();

      Instant now = Instant.now();
      assertThat(Drain.run(baton, "default", now))
          .singleElement()
          .extracting(JobRun::state)
          .isEqualTo(JobState.RETRYABLE);
      assertThat(Duration.between(now, f.job(id).scheduledAt()))
          .satisfies(KindSettingsTest::threeHoursJittered);
    }
  }

  @Test
  void configWinsOverTheHandlerClassWhichWinsOverTheArgsClass() {
    try (Fixture f = new Fixture()) {
      // Annotated's own retry base is 2 h; the handler class says 3 h; the config 4 h.
      Baton handlerOverArgs =
          Baton.builder(f.dataSource())
              .config(f.config().queue("annotated").build())
              .handler(Annotated.class, new AnnotatedArgsHandler())
              .build();
      Baton configOverHandler =
          Baton.builder(f.dataSource())
              .config(
                  f.config()
                      .kind(Annotated.class, KindConfig.builder().retryPolicy(FOUR_HOURS).build())
                      .build())
              .handler(Annotated.class, new AnnotatedArgsHandler())
              .build();

      assertThat(retryDelayOfOneFailedRun(f, handlerOverArgs))
          .satisfies(KindSettingsTest::threeHoursJittered);
      fourHours(retryDelayOfOneFailedRun(f, configOverHandler));
    }
  }

  @KindSettings(retryBase = "3h", retryCap = "3h")
  static final class AnnotatedArgsHandler implements JobHandler<Annotated> {
    @Override
    public void work(JobContext ctx, Annotated args) throws Exception {
      Fixture.blockUntilInterrupted();
    }
  }

  // The exponential policy of @KindSettings jitters by +-20%: 3 h is 2.4 h to 3.6 h, apart from
  // the args class's 2 h (1.6 h to 2.4 h) and the config's fixed 4 h.
  private static void threeHoursJittered(Duration d) {
    assertThat(d).isBetween(Duration.ofMinutes(144), Duration.ofMinutes(216));
  }

  // A delay counts from the drain's time to the millisecond.
  private static void fourHours(Duration d) {
    assertThat(d)
        .isBetween(Duration.ofHours(4).minusSeconds(1), Duration.ofHours(4).plusSeconds(1));
  }

  private static Duration retryDelayOfOneFailedRun(Fixture f, Baton baton) {
    long id = baton.enqueue(new Annotated(1)).id();
    Instant now = Instant.now();
    assertThat(Drain.run(baton, "annotated", now)).hasSize(1);
    return Duration.between(now, f.job(id).scheduledAt());
  }

  @Test
  void aTimeoutGivenAtRegistrationWinsOverTheConfigs() {
    try (Fixture f = new Fixture()) {
      Baton baton =
          Baton.builder(f.dataSource())
              .config(
                  f.config()
                      .kind(
                          Plain.class, KindConfig.builder().timeout(Duration.ofMillis(20)).build())
                      .build())
              .handler(
                  Plain.class,
                  Duration.ofMinutes(10),
                  (ctx, a) -> {
                    Thread.sleep(300);
                  })
              .build();
      baton.enqueue(new Plain(1));

      assertThat(Drain.run(baton, "default", Instant.now()))
          .singleElement()
          .extracting(JobRun::state)
          .isEqualTo(JobState.COMPLETED);
    }
  }

  @Test
  void kindGivenTwiceKeepsTheFirstSettingsTheSecondDoesNotReplace() {
    BatonConfig config =
        BatonConfig.builder()
            .kind("plain", KindConfig.builder().queue("mail").maxAttempts(3).build())
            .kind("plain", KindConfig.builder().maxAttempts(5).build())
            .build();

    assertThat(config.kind("plain").queue()).contains("mail");
    assertThat(config.kind("plain").maxAttempts()).hasValue(5);
    assertThat(config.kind("other").isEmpty()).isTrue();
  }

  @KindSettings(timeout = "soon")
  record BadTimeout(int n) implements JobArgs {}

  @Test
  void anAnnotationThatCannotBeReadFailsTheBuildNamingClassAndElement() {
    try (Fixture f = new Fixture()) {
      assertThatThrownBy(
              () -> Baton.builder(f.dataSource()).handler(BadTimeout.class, (ctx, a) -> {}).build())
          .isInstanceOf(InvalidConfigException.class)
          .hasMessageContaining("@KindSettings on " + BadTimeout.class.getName())
          .hasMessageContaining("timeout")
          .hasMessageContaining("\"soon\"");
    }
  }
}
