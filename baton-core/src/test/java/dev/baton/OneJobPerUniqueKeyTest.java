package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testing.Fixture;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Invariant 10: at most one job per unique key among the states it is unique in, under any
 * concurrency; a second enqueue returns the job holding the key, flagged as existing.
 */
class OneJobPerUniqueKeyTest {

  record Sync(String customer, int n) implements JobArgs {}

  /** Args whose field names hold the characters an array's text escapes or splits on. */
  @JobKind("odd")
  record Odd(
      @com.fasterxml.jackson.annotation.JsonProperty("a\"b") String quote,
      @com.fasterxml.jackson.annotation.JsonProperty("c\\d") String backslash,
      @com.fasterxml.jackson.annotation.JsonProperty("e,f}") String comma,
      int n)
      implements JobArgs {}

  private static EnqueueOptions unique(UniqueOptions.Builder u) {
    return EnqueueOptions.builder().unique(u.build()).build();
  }

  @Test
  void fiftyConcurrentEnqueuesOfOneUniqueJobCreateOneJob() throws Exception {
    int threads = 50;
    try (Fixture f = new Fixture(threads + 5)) {
      Baton baton = f.reader();
      CyclicBarrier barrier = new CyclicBarrier(threads);
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      List<Future<EnqueueResult>> results = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        results.add(
            pool.submit(
                () -> {
                  barrier.await();
                  return baton.enqueue(new Sync("acme", 1), unique(UniqueOptions.byArgs()));
                }));
      }
      List<EnqueueResult> done = new ArrayList<>();
      for (Future<EnqueueResult> r : results) {
        done.add(r.get());
      }
      pool.shutdown();

      assertThat(f.count("SELECT count(*) FROM %s.job")).isEqualTo(1);
      assertThat(done.stream().filter(r -> !r.existing())).hasSize(1);
      assertThat(done.stream().filter(EnqueueResult::existing)).hasSize(threads - 1);
      long id = done.get(0).id();
      assertThat(done).allSatisfy(r -> assertThat(r.job().id()).isEqualTo(id));
    }
  }

  @Test
  void argsInAnotherFieldOrderOrSpacingAreOneJob() {
    try (Fixture f = new Fixture()) {
      Baton baton = f.reader();
      EnqueueOptions byArgs = unique(UniqueOptions.byArgs());
      var admin = new dev.baton.admin.BatonAdmin(f.dataSource(), f.schema());
      var mapper = new com.fasterxml.jackson.databind.ObjectMapper();
      try {
        EnqueueResult first =
            admin.enqueue("sync", mapper.readTree("{\"a\":1,\"b\":{\"y\":2,\"x\":1}}"), byArgs);
        EnqueueResult second =
            admin.enqueue(
                "sync", mapper.readTree("{ \"b\" : { \"x\" : 1, \"y\" : 2 }, \"a\" : 1 }"), byArgs);
        EnqueueResult other = admin.enqueue("sync", mapper.readTree("{\"a\":2}"), byArgs);
        assertThat(first.existing()).isFalse();
        assertThat(second.existing()).isTrue();
        assertThat(second.id()).isEqualTo(first.id());
        assertThat(other.existing()).isFalse();
        // the key holds the kind: the same args of another kind are another job
        assertThat(
                admin
                    .enqueue("other", mapper.readTree("{\"a\":1,\"b\":{\"y\":2,\"x\":1}}"), byArgs)
                    .existing())
            .isFalse();
      } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
        throw new AssertionError(e);
      }
      assertThat(f.count("SELECT count(*) FROM %s.job")).isEqualTo(3);
      assertThat(baton.enqueue(new Sync("acme", 1), byArgs).existing()).isFalse();
    }
  }

  @Test
  void aFinishedJobNoLongerBlocksANewOneByDefault() {
    try (Fixture f = new Fixture()) {
      Baton baton = f.reader();
      EnqueueOptions opts = unique(UniqueOptions.byArgs());
      long first = baton.enqueue(new Sync("acme", 1), opts).id();
      assertThat(baton.enqueue(new Sync("acme", 1), opts).id()).isEqualTo(first);
      f.execute("UPDATE %s.job SET state = 'completed', finalized_at = now() WHERE id = " + first);
      EnqueueResult after = baton.enqueue(new Sync("acme", 1), opts);
      assertThat(after.existing()).isFalse();
      assertThat(after.id()).isNotEqualTo(first);
    }
  }

  @Test
  void chosenFinalStatesKeepBlocking() {
    try (Fixture f = new Fixture()) {
      Baton baton = f.reader();
      EnqueueOptions opts =
          unique(
              UniqueOptions.byArgs()
                  .states(
                      EnumSet.of(
                          JobState.SCHEDULED,
                          JobState.AVAILABLE,
                          JobState.RUNNING,
                          JobState.RETRYABLE,
                          JobState.COMPLETED)));
      long first = baton.enqueue(new Sync("acme", 1), opts).id();
      f.execute("UPDATE %s.job SET state = 'completed', finalized_at = now() WHERE id = " + first);
      EnqueueResult again = baton.enqueue(new Sync("acme", 1), opts);
      assertThat(again.existing()).isTrue();
      assertThat(again.id()).isEqualTo(first);
      assertThat(again.job().state()).isEqualTo(JobState.COMPLETED);
      f.execute("UPDATE %s.job SET state = 'cancelled' WHERE id = " + first);
      assertThat(baton.enqueue(new Sync("acme", 1), opts).existing()).isFalse();
    }
  }

  @Test
  void namedFieldsAndQueueAndPeriodMakeTheKey() {
    try (Fixture f = new Fixture()) {
      Baton baton = f.reader();
      EnqueueOptions byCustomer = unique(UniqueOptions.byFields("customer"));
      long a = baton.enqueue(new Sync("acme", 1), byCustomer).id();
      assertThat(baton.enqueue(new Sync("acme", 2), byCustomer).id()).isEqualTo(a);
      assertThat(baton.enqueue(new Sync("beta", 1), byCustomer).existing()).isFalse();

      // per queue: the same job in another queue is another job; without, it is the same
      EnqueueOptions perQueueA =
          EnqueueOptions.builder()
              .queue("qa")
              .unique(UniqueOptions.byKind().perQueue().build())
              .build();
      EnqueueOptions perQueueB =
          EnqueueOptions.builder()
              .queue("qb")
              .unique(UniqueOptions.byKind().perQueue().build())
              .build();
      long qa = baton.enqueue(new Sync("x", 0), perQueueA).id();
      assertThat(baton.enqueue(new Sync("y", 0), perQueueA).id()).isEqualTo(qa);
      assertThat(baton.enqueue(new Sync("x", 0), perQueueB).existing()).isFalse();

      // period: one job per hour bucket of the run time
      Instant hour = Instant.parse("2031-05-01T10:00:00Z");
      UniqueOptions hourly = UniqueOptions.byArgs().period(Duration.ofHours(1)).build();
      long p1 = baton.enqueue(new Sync("p", 0), at(hour.plusSeconds(60), hourly)).id();
      assertThat(baton.enqueue(new Sync("p", 0), at(hour.plusSeconds(3599), hourly)).id())
          .isEqualTo(p1);
      EnqueueResult nextHour = baton.enqueue(new Sync("p", 0), at(hour.plusSeconds(3600), hourly));
      assertThat(nextHour.existing()).isFalse();
      EnqueueResult earlier = baton.enqueue(new Sync("p", 0), at(hour.minusSeconds(1), hourly));
      assertThat(earlier.existing()).isFalse();
    }
  }

  @Test
  void fieldNamesWithQuotesBackslashesAndCommasNameTheSameFieldsInEveryEnqueuePath() {
    try (Fixture f = new Fixture()) {
      Baton baton = f.reader();
      EnqueueOptions opts = unique(UniqueOptions.byFields("a\"b", "c\\d", "e,f}"));
      long first = baton.enqueue(new Odd("q", "b", "c", 0), opts).id();
      assertThat(baton.enqueue(new Odd("q", "b", "c", 1), opts).id()).isEqualTo(first);
      assertThat(baton.enqueue(new Odd("q", "b", "other", 1), opts).existing()).isFalse();
      // a bulk of arrays' text, and one streamed with COPY (256 jobs or more)
      for (int size : new int[] {2, 300}) {
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < size; i++) {
          requests.add(JobRequest.of(new Odd("q", "b", "c", i), opts));
        }
        EnqueueManyResult r = baton.enqueueMany(requests);
        for (int i = 0; i < size; i++) {
          assertThat(r.jobIds()[i]).as("job %d of a bulk of %d", i, size).isEqualTo(first);
        }
      }
      assertThat(f.count("SELECT count(*) FROM %s.job")).isEqualTo(2);
    }
  }

  @Test
  void aBulkWithRepeatedUniqueKeysInsertsEachKeyOnce() {
    try (Fixture f = new Fixture()) {
      Baton baton = f.reader();
      EnqueueOptions opts = unique(UniqueOptions.byFields("customer"));
      long before = baton.enqueue(new Sync("acme", 0), opts).id();
      EnqueueManyResult r =
          baton.enqueueMany(
              List.of(
                  JobRequest.of(new Sync("acme", 1), opts),
                  JobRequest.of(new Sync("beta", 1), opts),
                  JobRequest.of(new Sync("gamma", 1)),
                  JobRequest.of(new Sync("beta", 2), opts),
                  JobRequest.of(new Sync("gamma", 1))));
      assertThat(r.existing()).containsExactly(true, false, false, true, false);
      assertThat(r.jobIds()[0]).isEqualTo(before);
      assertThat(r.jobIds()[3]).isEqualTo(r.jobIds()[1]);
      assertThat(r.jobIds()[4]).isNotEqualTo(r.jobIds()[2]);
      assertThat(f.count("SELECT count(*) FROM %s.job")).isEqualTo(4);
      assertThat(f.job(r.jobIds()[1]).args().path("n").asInt()).isEqualTo(1);
    }
  }

  @Test
  void aBulkByCopyWithRepeatedUniqueKeysInsertsEachKeyOnce() {
    try (Fixture f = new Fixture()) {
      Baton baton = f.reader();
      EnqueueOptions opts = unique(UniqueOptions.byFields("customer"));
      long before = baton.enqueue(new Sync("c0", -1), opts).id();
      List<JobRequest> requests = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        requests.add(JobRequest.of(new Sync("c" + (i % 100), i), opts));
      }
      requests.add(JobRequest.of(new Sync("plain", 0)));
      EnqueueManyResult r = baton.enqueueMany(requests);

      assertThat(r.size()).isGreaterThanOrEqualTo(dev.baton.internal.db.EnqueueStore.COPY_MIN_JOBS);
      assertThat(f.count("SELECT count(*) FROM %s.job")).isEqualTo(101);
      assertThat(r.insertedCount()).isEqualTo(100); // c1..c99 and the plain job
      assertThat(r.jobIds()[0]).isEqualTo(before);
      for (int i = 100; i < 300; i++) {
        assertThat(r.existing()[i]).isTrue();
        assertThat(r.jobIds()[i]).isEqualTo(r.jobIds()[i % 100]);
      }
      // the first request of each key is the one inserted
      assertThat(f.job(r.jobIds()[7]).args().path("n").asInt()).isEqualTo(7);
      assertThat(f.count("SELECT count(*) FROM %s.job_staged")).isZero();
    }
  }

  @Test
  void concurrentBulksOfTheSameUniqueJobsInsertEachKeyOnce() throws Exception {
    int threads = 8;
    try (Fixture f = new Fixture(threads + 5)) {
      Baton baton = f.reader();
      EnqueueOptions opts = unique(UniqueOptions.byFields("customer"));
      CyclicBarrier barrier = new CyclicBarrier(threads);
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      List<Future<EnqueueManyResult>> results = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        // half by statement (50 requests), half by COPY (300)
        int size = t % 2 == 0 ? 50 : 300;
        results.add(
            pool.submit(
                () -> {
                  List<JobRequest> requests = new ArrayList<>();
                  for (int i = 0; i < size; i++) {
                    requests.add(JobRequest.of(new Sync("c" + (i % 50), i), opts));
                  }
                  barrier.await();
                  return baton.enqueueMany(requests);
                }));
      }
      long inserted = 0;
      java.util.Set<Long> ids = new java.util.HashSet<>();
      for (Future<EnqueueManyResult> r : results) {
        EnqueueManyResult done = r.get();
        inserted += done.insertedCount();
        for (long id : done.jobIds()) {
          ids.add(id);
        }
      }
      pool.shutdown();
      assertThat(f.count("SELECT count(*) FROM %s.job")).isEqualTo(50);
      assertThat(inserted).isEqualTo(50);
      assertThat(ids).hasSize(50);
    }
  }

  @Test
  void aJobWithoutUniquenessHasNoKey() {
    try (Fixture f = new Fixture()) {
      Baton baton = f.reader();
      baton.enqueue(new Sync("acme", 1));
      baton.enqueue(new Sync("acme", 1));
      assertThat(f.count("SELECT count(*) FROM %s.job WHERE unique_key IS NULL")).isEqualTo(2);
    }
  }

  @Test
  void theDocsExamplesRunAsWritten() {
    try (Fixture f = new Fixture()) {
      Baton baton = f.reader();
      // docs:begin unique-jobs
      EnqueueOptions oncePerCustomerAndHour =
          EnqueueOptions.builder()
              .unique(UniqueOptions.byFields("customer").period(Duration.ofHours(1)).build())
              .build();
      EnqueueResult r = baton.enqueue(new Sync("acme", 1), oncePerCustomerAndHour);
      if (r.existing()) {
        // nothing was inserted: r.job() is the job that holds the key
      }
      // docs:end unique-jobs
      assertThat(r.existing()).isFalse();
      assertThat(baton.enqueue(new Sync("acme", 2), oncePerCustomerAndHour).existing()).isTrue();

      // docs:begin debounce
      EnqueueOptions debounced =
          EnqueueOptions.builder()
              .unique(
                  UniqueOptions.byFields("customer")
                      .replace(UniqueOptions.Replace.ARGS)
                      .debounce(Duration.ofSeconds(30), Duration.ofMinutes(5))
                      .build())
              .build();
      baton.enqueue(new Sync("beta", 1), debounced); // runs in 30 s ...
      baton.enqueue(new Sync("beta", 2), debounced); // ... now 30 s from here, with n = 2
      // docs:end debounce
      assertThat(f.count("SELECT count(*) FROM %s.job WHERE args ->> 'customer' = 'beta'"))
          .isEqualTo(1);
    }
  }

  private static EnqueueOptions at(Instant runAt, UniqueOptions u) {
    return EnqueueOptions.builder().runAt(runAt).unique(u).build();
  }
}
