package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.testing.TestDatabase;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SmokeTest {
  record Hello(String name) implements JobArgs {}

  @Test
  void enqueuedJobRunsAndCompletes() {
    TestDatabase db = TestDatabase.get();
    String schema = db.newMigratedSchema();
    AtomicInteger runs = new AtomicInteger();
    try (HikariDataSource ds = db.dataSource(8);
        Baton baton =
            Baton.builder(ds)
                .config(BatonConfig.builder().schema(schema).queue("default", 4).build())
                .handler(Hello.class, (ctx, args) -> runs.incrementAndGet())
                .build()) {
      baton.start();
      EnqueueResult r = baton.enqueue(new Hello("x"));
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> baton.job(r.job().id()).orElseThrow().state() == JobState.COMPLETED);
      assertThat(runs).hasValue(1);
    }
  }
}
