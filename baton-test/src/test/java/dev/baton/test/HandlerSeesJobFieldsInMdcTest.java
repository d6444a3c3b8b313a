package dev.baton.test;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.Drain;
import dev.baton.EnqueueOptions;
import dev.baton.JobArgs;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.MDC;

/**
 * While a handler runs, the logging MDC of its thread holds the job's fields (job_id, kind, queue,
 * attempt), and they are gone once it returns. Logback's MDC here: slf4j-simple's keeps nothing.
 */
@ExtendWith(BatonExtension.class)
class HandlerSeesJobFieldsInMdcTest {

  record Audit(int n) implements JobArgs {}

  @Test
  void aWorkersHandlerSeesTheJobInTheMdc(TestSchema schema) throws Exception {
    CompletableFuture<Map<String, String>> seen = new CompletableFuture<>();
    Baton baton =
        Baton.builder(schema.dataSource())
            .config(schema.config().queue("audit", 1).pollInterval(Duration.ofMillis(200)).build())
            .handler(Audit.class, (ctx, a) -> seen.complete(MDC.getCopyOfContextMap()))
            .build();
    baton.start();
    try {
      long id = baton.enqueue(new Audit(1), EnqueueOptions.builder().queue("audit").build()).id();
      assertThat(seen.get(30, TimeUnit.SECONDS))
          .containsEntry("job_id", Long.toString(id))
          .containsEntry("kind", "audit")
          .containsEntry("queue", "audit")
          .containsEntry("attempt", "1");
    } finally {
      baton.stop();
    }
  }

  @Test
  void theFieldsAreSetOnTheHandlersThreadAndClearedAfter(TestSchema schema) {
    AtomicReference<Map<String, String>> seen = new AtomicReference<>();
    Baton baton =
        Baton.builder(schema.dataSource())
            .config(schema.config().build())
            .handler(Audit.class, (ctx, a) -> seen.set(MDC.getCopyOfContextMap()))
            .build();
    long id = baton.enqueue(new Audit(2), EnqueueOptions.builder().queue("drained").build()).id();

    // A drain runs the handler on this thread: the fields are there during, gone after.
    Drain.run(baton, "drained", Instant.now().plus(Duration.ofDays(1)));

    assertThat(seen.get())
        .containsEntry("job_id", Long.toString(id))
        .containsEntry("queue", "drained")
        .containsEntry("attempt", "1");
    assertThat(MDC.get("job_id")).isNull();
    assertThat(MDC.get("kind")).isNull();
    assertThat(MDC.get("queue")).isNull();
    assertThat(MDC.get("attempt")).isNull();
  }
}
