package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.spi.JobInterceptor;
import dev.baton.testing.Fixture;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Interceptors add metadata to every enqueue and run around every handler attempt. */
class JobInterceptorTest {

  record Traced(int n) implements JobArgs {}

  private static final JobInterceptor TAGS =
      new JobInterceptor() {
        @Override
        public Map<String, ?> enqueueMetadata(String kind, EnqueueOptions options) {
          return Map.of("trace", "t-" + kind, "tenant", "from-interceptor");
        }
      };

  @Test
  void everyEnqueueStoresTheInterceptorsMetadataAndTheCallersEntriesWin() throws Exception {
    try (Fixture f = new Fixture()) {
      Baton baton =
          Baton.builder(f.dataSource())
              .config(f.config().knownKinds("traced").build())
              .interceptor(TAGS)
              .build();
      EnqueueOptions own = EnqueueOptions.builder().metadata("tenant", "acme").build();
      List<Long> ids = new ArrayList<>();
      ids.add(baton.enqueue(new Traced(1), own).id());
      try (Connection c = f.dataSource().getConnection()) {
        ids.add(baton.enqueue(c, new Traced(2), own).id());
        for (long id : baton.enqueueMany(c, List.of(JobRequest.of(new Traced(3), own))).jobIds()) {
          ids.add(id);
        }
      }
      for (long id : baton.enqueueMany(List.of(JobRequest.of(new Traced(4), own))).jobIds()) {
        ids.add(id);
      }

      for (long id : ids) {
        Job job = f.job(id);
        assertThat(job.metadata().path("trace").asText()).as("job %d", id).isEqualTo("t-traced");
        assertThat(job.metadata().path("tenant").asText()).as("job %d", id).isEqualTo("acme");
      }
    }
  }

  @Test
  void interceptorsRunAroundTheHandlerFirstRegisteredOutermostAndTheirThrowIsTheOutcome() {
    try (Fixture f = new Fixture()) {
      List<String> calls = Collections.synchronizedList(new ArrayList<>());
      Baton baton =
          Baton.builder(f.dataSource())
              .config(f.config().retryPolicy((a, e) -> Duration.ofHours(1)).build())
              .interceptor(recording("outer", calls))
              .interceptor(recording("inner", calls))
              .interceptor(
                  new JobInterceptor() {
                    @Override
                    public void aroundHandler(JobContext ctx, Attempt attempt) throws Exception {
                      if (ctx.metadata().path("refuse").asBoolean()) {
                        throw new IllegalStateException("refused by interceptor");
                      }
                      attempt.proceed();
                    }
                  })
              .handler(Traced.class, (ctx, t) -> calls.add("handler " + t.n()))
              .build();
      baton.enqueue(new Traced(1));
      long refused =
          baton
              .enqueue(new Traced(2), EnqueueOptions.builder().metadata("refuse", true).build())
              .id();

      List<JobRun> runs = Drain.run(baton, "default", Instant.now().plus(Duration.ofDays(1)));

      assertThat(calls)
          .containsExactly(
              "outer>",
              "inner>",
              "handler 1",
              "<inner",
              "<outer",
              "outer>",
              "inner>",
              "<inner",
              "<outer");
      assertThat(runs)
          .extracting(JobRun::state)
          .containsExactly(JobState.COMPLETED, JobState.RETRYABLE);
      assertThat(f.job(refused).errors())
          .singleElement()
          .satisfies(e -> assertThat(e.message()).isEqualTo("refused by interceptor"));
    }
  }

  private static JobInterceptor recording(String name, List<String> calls) {
    return new JobInterceptor() {
      @Override
      public void aroundHandler(JobContext ctx, Attempt attempt) throws Exception {
        calls.add(name + ">");
        try {
          attempt.proceed();
        } finally {
          calls.add("<" + name);
        }
      }
    };
  }
}
