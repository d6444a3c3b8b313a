package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testing.Fixture;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** A handler's output, durable steps and progress, as its context records them. */
class OutputsStepsAndProgressTest {

  record Work(int n) implements JobArgs {}

  record Total(int total) {}

  @Test
  void anOutputIsRecordedAndAnOversizedOneIsRejectedWithTheLimit() {
    try (Fixture f = new Fixture()) {
      Map<Long, String> errors = new ConcurrentHashMap<>();
      f.start(
          f.config().queue("default", 2).maxArgsBytes(100).build(),
          b ->
              b.handler(
                  Work.class,
                  (ctx, a) -> {
                    if (a.n() == 1) {
                      ctx.recordOutput(new Total(42));
                    } else {
                      try {
                        ctx.recordOutput("x".repeat(200));
                      } catch (InvalidJobException e) {
                        errors.put(ctx.jobId(), e.getMessage());
                      }
                    }
                  }));
      long small = f.reader().enqueue(new Work(1)).job().id();
      long big = f.reader().enqueue(new Work(2)).job().id();
      await().atMost(Duration.ofSeconds(15)).until(() -> done(f, small) && done(f, big));
      assertThat(output(f, small)).isEqualTo("{\"total\": 42}");
      assertThat(output(f, big)).isNull();
      assertThat(errors.get(big))
          .isEqualTo(
              "cannot record output of job (id="
                  + big
                  + "): it is 202 bytes of JSON, over the limit of 100 (BatonConfig"
                  + " maxArgsBytes); store large data elsewhere and record a reference");
    }
  }

  @Test
  void aStepRecordedByAFailedAttemptIsNotRunAgain() {
    try (Fixture f = new Fixture()) {
      List<String> ran = new CopyOnWriteArrayList<>();
      List<Integer> results = new CopyOnWriteArrayList<>();
      f.start(
          f.config().queue("default", 1).retryPolicy((n, e) -> Duration.ofMillis(10)).build(),
          b ->
              b.handler(
                  Work.class,
                  (ctx, a) -> {
                    int one = ctx.step("one", Integer.class, () -> record(ran, "one", 1));
                    int two = ctx.step("two", Integer.class, () -> record(ran, "two", 2));
                    if (ctx.attempt() == 1) {
                      throw new IllegalStateException("fails after step two");
                    }
                    int three = ctx.step("three", Integer.class, () -> record(ran, "three", 3));
                    results.add(one + two + three);
                  }));
      long id = f.reader().enqueue(new Work(1)).job().id();
      await().atMost(Duration.ofSeconds(15)).until(() -> done(f, id));
      assertThat(ran).containsExactly("one", "two", "three");
      assertThat(results).containsExactly(6);
      assertThat(
              f.db()
                  .queryString(
                      "SELECT string_agg(k || '@' || (v ->> 'attempt'), ',' ORDER BY k) FROM \""
                          + f.schema()
                          + "\".job, jsonb_each(steps) AS s(k, v) WHERE id = "
                          + id))
          .isEqualTo("one@1,three@2,two@1");
    }
  }

  @Test
  void progressReportsInATightLoopAreThrottled() {
    try (Fixture f = new Fixture()) {
      // Counts the writes of progress with a trigger of this test's schema only.
      f.execute(
          "CREATE TABLE %s.progress_writes (n int);"
              + "CREATE FUNCTION %s.count_progress() RETURNS trigger LANGUAGE plpgsql AS"
              + " $$ BEGIN INSERT INTO %s.progress_writes VALUES (1); RETURN NEW; END $$;"
              + "CREATE TRIGGER count_progress AFTER UPDATE OF progress ON %s.job"
              + " FOR EACH ROW EXECUTE FUNCTION %s.count_progress()");
      int reports = 2_000;
      long[] elapsedNanos = new long[1];
      f.start(
          f.config().queue("default", 1).build(),
          b ->
              b.handler(
                  Work.class,
                  (ctx, a) -> {
                    long start = System.nanoTime();
                    for (int i = 1; i <= reports; i++) {
                      ctx.progress((double) i / reports, "item " + i);
                    }
                    elapsedNanos[0] = System.nanoTime() - start;
                  }));
      long id = f.reader().enqueue(new Work(1)).job().id();
      await().atMost(Duration.ofSeconds(30)).until(() -> done(f, id));
      long writes = f.count("SELECT count(*) FROM %s.progress_writes");
      long seconds = Duration.ofNanos(elapsedNanos[0]).toSeconds();
      System.out.printf(
          "%d progress reports in %d ms: %d writes%n",
          reports, Duration.ofNanos(elapsedNanos[0]).toMillis(), writes);
      // The first report, one per elapsed second, and the final fraction of 1.
      assertThat(writes).isBetween(2L, seconds + 2);
      assertThat(
              f.db()
                  .queryString(
                      "SELECT progress ->> 'fraction' || ' ' || (progress ->> 'message') FROM \""
                          + f.schema()
                          + "\".job WHERE id = "
                          + id))
          .isEqualTo("1 item " + reports);
    }
  }

  private static int record(List<String> ran, String step, int result) {
    ran.add(step);
    return result;
  }

  private static boolean done(Fixture f, long id) {
    return f.job(id).state().isFinal();
  }

  private static String output(Fixture f, long id) {
    return f.db()
        .queryString("SELECT output::text FROM \"" + f.schema() + "\".job WHERE id = " + id);
  }
}
