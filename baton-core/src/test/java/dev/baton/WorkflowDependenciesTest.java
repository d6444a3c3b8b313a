package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.testing.Fixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Invariant 12, its first clauses: a dependent job starts only after every dependency completed (or
 * as its policy says), and a batch callback runs once. In one process; the crash tests are
 * DiamondWorkflowSurvivesKillsIT.
 */
class WorkflowDependenciesTest {

  /** A step of a test workflow: it records its output {@code "<name>-out"}, or fails. */
  record Step(String name, boolean fail) implements JobArgs {}

  record Seen(String name, Map<String, String> outputs) {}

  private static Baton start(Fixture f, List<Seen> seen) {
    return f.start(
        f.config().queue("default", 4).build(),
        b ->
            b.handler(
                Step.class,
                (ctx, s) -> {
                  Map<String, String> outputs = new ConcurrentHashMap<>();
                  for (Dependency d : ctx.dependencies()) {
                    assertThat(d.state()).isIn(JobState.COMPLETED, JobState.DISCARDED);
                    if (d.name() != null && d.output() != null) {
                      outputs.put(d.name(), d.output().asText());
                    }
                  }
                  seen.add(new Seen(s.name(), outputs));
                  if (s.fail()) {
                    throw new IllegalStateException("step " + s.name() + " fails");
                  }
                  ctx.recordOutput(s.name() + "-out");
                }));
  }

  private static EnqueueOptions once() {
    return EnqueueOptions.builder().maxAttempts(1).build();
  }

  @Test
  void aDiamondsLastStepRunsAfterBothBranchesAndReadsTheirOutputsByStepName() {
    try (Fixture f = new Fixture()) {
      List<Seen> seen = new CopyOnWriteArrayList<>();
      Workflow diamond =
          Workflow.builder()
              .step("d", new Step("d", false), "b", "c") // added first: order does not matter
              .step("a", new Step("a", false))
              .step("b", new Step("b", false), "a")
              .step("c", new Step("c", false), "a")
              .build();
      EnqueuedWorkflow wf = f.reader().enqueueWorkflow(diamond);
      assertThat(f.job(wf.id("a")).state()).isEqualTo(JobState.AVAILABLE);
      assertThat(f.job(wf.id("d")).state()).isEqualTo(JobState.PENDING);
      start(f, seen);
      await().atMost(Duration.ofSeconds(20)).until(() -> done(f, wf.id("d")));

      assertThat(seen).extracting(Seen::name).hasSize(4).startsWith("a").endsWith("d");
      assertThat(seen.get(3).outputs())
          .containsOnly(Map.entry("b", "b-out"), Map.entry("c", "c-out"));
      assertThat(
              f.count(
                  "SELECT count(*) FROM %s.job d, %s.job b WHERE d.id = "
                      + wf.id("d")
                      + " AND b.id IN ("
                      + wf.id("b")
                      + ", "
                      + wf.id("c")
                      + ") AND b.finalized_at <= d.attempted_at"))
          .as("both branches completed before the last step was claimed")
          .isEqualTo(2);
    }
  }

  @Test
  void aDiamondRunsWhenCompletionsDeleteTheirRows() {
    try (Fixture f = new Fixture()) {
      List<Seen> seen = new CopyOnWriteArrayList<>();
      EnqueuedWorkflow wf =
          f.reader()
              .enqueueWorkflow(
                  Workflow.builder()
                      .step("a", new Step("a", false))
                      .step("b", new Step("b", false), "a")
                      .step("c", new Step("c", false), "a")
                      .step("d", new Step("d", false), "b", "c")
                      .build());
      f.start(
          f.config().queue("default", 4).completedRetention(Duration.ZERO).build(),
          b ->
              b.handler(
                  Step.class,
                  (ctx, s) -> {
                    Map<String, String> outputs = new ConcurrentHashMap<>();
                    for (Dependency d : ctx.dependencies()) {
                      outputs.put(d.name(), d.output().asText());
                    }
                    seen.add(new Seen(s.name(), outputs));
                    ctx.recordOutput(s.name() + "-out");
                  }));
      await().atMost(Duration.ofSeconds(20)).until(() -> f.reader().job(wf.id("d")).isEmpty());
      assertThat(seen).extracting(Seen::name).hasSize(4).startsWith("a").endsWith("d");
      assertThat(seen.get(3).outputs())
          .containsOnly(Map.entry("b", "b-out"), Map.entry("c", "c-out"));
      assertThat(f.job(wf.id("b")).state())
          .as("a step with dependents keeps its row, for its output")
          .isEqualTo(JobState.COMPLETED);
    }
  }

  @ParameterizedTest
  @EnumSource(DependencyFailure.class)
  void aDiscardedDependencyCancelsRunsOrHoldsItsDependentsAsConfigured(DependencyFailure policy) {
    try (Fixture f = new Fixture()) {
      List<Seen> seen = new CopyOnWriteArrayList<>();
      EnqueuedWorkflow wf =
          f.reader()
              .enqueueWorkflow(
                  Workflow.builder()
                      .onDependencyFailure(policy)
                      .step("a", new Step("a", true), once())
                      .step("b", new Step("b", false), "a")
                      .step("c", new Step("c", false), "b")
                      .build());
      start(f, seen);
      await().atMost(Duration.ofSeconds(20)).until(() -> done(f, wf.id("a")));
      switch (policy) {
        case CANCEL -> {
          await().atMost(Duration.ofSeconds(20)).until(() -> done(f, wf.id("c")));
          assertThat(f.job(wf.id("b")).state()).isEqualTo(JobState.CANCELLED);
          assertThat(f.job(wf.id("b")).errors().get(0).message())
              .isEqualTo("a dependency was discarded or cancelled");
          assertThat(f.job(wf.id("c")).state())
              .as("cancelled in turn")
              .isEqualTo(JobState.CANCELLED);
          assertThat(seen).extracting(Seen::name).containsExactly("a");
        }
        case RUN -> {
          await().atMost(Duration.ofSeconds(20)).until(() -> done(f, wf.id("c")));
          assertThat(f.job(wf.id("b")).state()).isEqualTo(JobState.COMPLETED);
          assertThat(f.job(wf.id("c")).state()).isEqualTo(JobState.COMPLETED);
          assertThat(seen).extracting(Seen::name).containsExactly("a", "b", "c");
        }
        case HOLD -> {
          assertThat(f.job(wf.id("b")).state()).isEqualTo(JobState.PENDING);
          // An operator retries the failed dependency: its completion now releases the held one.
          assertThat(
                  new dev.baton.admin.BatonAdmin(f.dataSource(), f.schema())
                      .retry(wf.id("a"), "test")
                      .outcome())
              .isEqualTo(dev.baton.admin.JobAdmin.RetryOutcome.RETRIED);
          await().atMost(Duration.ofSeconds(20)).until(() -> seen.size() >= 2);
          // The retried step fails again (its args say so): the dependent is still held.
          await().atMost(Duration.ofSeconds(20)).until(() -> done(f, wf.id("a")));
          assertThat(f.job(wf.id("b")).state()).isEqualTo(JobState.PENDING);
          assertThat(seen).extracting(Seen::name).containsOnly("a");
        }
      }
    }
  }

  @Test
  void aHeldDependentRunsWhenItsRetriedDependencyCompletes() {
    try (Fixture f = new Fixture()) {
      List<Seen> seen = new CopyOnWriteArrayList<>();
      boolean[] failFirst = {true};
      f.start(
          f.config().queue("default", 2).build(),
          b ->
              b.handler(
                  Step.class,
                  (ctx, s) -> {
                    seen.add(new Seen(s.name(), Map.of()));
                    if (s.name().equals("a") && failFirst[0]) {
                      failFirst[0] = false;
                      throw new IllegalStateException("first try fails");
                    }
                  }));
      EnqueuedWorkflow wf =
          f.reader()
              .enqueueWorkflow(
                  Workflow.builder()
                      .onDependencyFailure(DependencyFailure.HOLD)
                      .step("a", new Step("a", false), once())
                      .step("b", new Step("b", false), "a")
                      .build());
      await().atMost(Duration.ofSeconds(20)).until(() -> done(f, wf.id("a")));
      assertThat(f.job(wf.id("a")).state()).isEqualTo(JobState.DISCARDED);
      assertThat(f.job(wf.id("b")).state()).isEqualTo(JobState.PENDING);
      new dev.baton.admin.BatonAdmin(f.dataSource(), f.schema()).retry(wf.id("a"), "test");
      await().atMost(Duration.ofSeconds(20)).until(() -> done(f, wf.id("b")));
      assertThat(f.job(wf.id("b")).state()).isEqualTo(JobState.COMPLETED);
      assertThat(seen).extracting(Seen::name).containsExactly("a", "a", "b");
    }
  }

  @Test
  void aCycleAnUnknownStepAndAnUnknownJobIdAreRejectedWithAClearError() {
    try (Fixture f = new Fixture()) {
      assertThatThrownBy(
              () ->
                  Workflow.builder()
                      .step("a", new Step("a", false), "c")
                      .step("b", new Step("b", false), "a")
                      .step("c", new Step("c", false), "b")
                      .step("d", new Step("d", false))
                      .build())
          .isInstanceOf(InvalidJobException.class)
          .hasMessage(
              "cannot build workflow: steps a -> c -> b -> a form a cycle; a workflow's steps must"
                  + " not wait for each other in a circle");
      assertThatThrownBy(() -> Workflow.builder().step("a", new Step("a", false), "a").build())
          .isInstanceOf(InvalidJobException.class)
          .hasMessageContaining("steps a -> a form a cycle");
      assertThatThrownBy(() -> Workflow.builder().step("a", new Step("a", false), "x").build())
          .isInstanceOf(InvalidJobException.class)
          .hasMessage(
              "cannot build workflow: step \"a\" waits for unknown step \"x\"; the steps are [a]");
      long existing = f.reader().enqueue(new Step("e", false)).job().id();
      assertThatThrownBy(
              () ->
                  f.reader()
                      .enqueueAfter(
                          new long[] {existing, 987654321L, 987654322L},
                          new Step("x", false),
                          EnqueueOptions.defaults()))
          .isInstanceOf(InvalidJobException.class)
          .hasMessage(
              "cannot enqueue workflow for jobs [987654321, 987654322]: they do not exist (never"
                  + " enqueued, or cleaned after their retention); wait only for jobs that exist");
      assertThat(f.count("SELECT count(*) FROM %s.job")).as("nothing written").isEqualTo(1);
    }
  }

  @Test
  void aJobEnqueuedAfterExistingJobsWaitsForThemAndAfterACompletedOneRunsAtOnce() {
    try (Fixture f = new Fixture()) {
      List<Seen> seen = new CopyOnWriteArrayList<>();
      long first = f.reader().enqueue(new Step("first", false)).job().id();
      long after =
          f.reader()
              .enqueueAfter(new long[] {first}, new Step("after", false), EnqueueOptions.defaults())
              .id();
      assertThat(f.job(after).state()).isEqualTo(JobState.PENDING);
      start(f, seen);
      await().atMost(Duration.ofSeconds(20)).until(() -> done(f, after));
      assertThat(seen).extracting(Seen::name).containsExactly("first", "after");
      assertThat(seen.get(1).outputs()).isEmpty(); // a plain dependency has no step name
      long late =
          f.reader()
              .enqueueAfter(new long[] {first}, new Step("late", false), EnqueueOptions.defaults())
              .id();
      await().atMost(Duration.ofSeconds(20)).until(() -> done(f, late));
      assertThat(f.job(late).state()).isEqualTo(JobState.COMPLETED);
    }
  }

  @Test
  void aBatchCallbackRunsOnceWithTheCountsAndTheDiscardedIds() {
    try (Fixture f = new Fixture()) {
      List<Map<JobState, Long>> counts = new CopyOnWriteArrayList<>();
      List<List<Long>> discarded = new CopyOnWriteArrayList<>();
      f.start(
          f.config().queue("default", 4).build(),
          b ->
              b.handler(
                      Step.class,
                      (ctx, s) -> {
                        if (s.fail()) {
                          throw new IllegalStateException("fails");
                        }
                      })
                  .handler(
                      Callback.class,
                      (ctx, c) -> {
                        counts.add(ctx.dependencyCounts());
                        discarded.add(
                            ctx.dependencies().stream()
                                .filter(d -> d.state() == JobState.DISCARDED)
                                .map(Dependency::jobId)
                                .toList());
                      }));
      List<JobRequest> members = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        members.add(JobRequest.of(new Step("m" + i, i % 10 == 3), once()));
      }
      EnqueuedBatch batch = f.reader().enqueueBatch(members, JobRequest.of(new Callback("done")));
      await().atMost(Duration.ofSeconds(30)).until(() -> done(f, batch.callbackId()));
      assertThat(counts).hasSize(1);
      assertThat(counts.get(0))
          .containsOnly(Map.entry(JobState.COMPLETED, 36L), Map.entry(JobState.DISCARDED, 4L));
      assertThat(discarded.get(0))
          .containsExactly(batch.ids()[3], batch.ids()[13], batch.ids()[23], batch.ids()[33]);
    }
  }

  record Callback(String label) implements JobArgs {}

  private static boolean done(Fixture f, long id) {
    return f.job(id).state().isFinal();
  }

  @SuppressWarnings("unused")
  private static JsonNode unused() {
    return null;
  }
}
