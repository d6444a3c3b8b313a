package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.migrate.Migrator;
import dev.baton.testing.Fixture;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The NOTIFY channels are the schema name plus "_insert" / "_control", and PostgreSQL's channel
 * names stop at 63 bytes. Schema names are therefore capped at 55 characters when the config is
 * built, and the longest accepted name works end to end, cancel of a running job included.
 */
class SchemaNamesFitTheirNotifyChannelsTest {

  record Ping(int n) implements JobArgs {}

  @Test
  void aSchemaNameTooLongForItsChannelsIsRejectedWhenTheConfigIsBuilt() {
    String tooLong = "s" + "x".repeat(55); // 56 characters
    assertThatThrownBy(() -> BatonConfig.builder().schema(tooLong))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("schema")
        .hasMessageContaining("1-55 characters");
  }

  @Test
  void theLongestAcceptedSchemaNameEnqueuesAndCancelsARunningJob() throws Exception {
    try (Fixture f = new Fixture()) {
      String schema = "s" + "x".repeat(54); // 55 characters
      new Migrator(f.db().admin(), schema).up();
      CountDownLatch started = new CountDownLatch(1);
      try (Baton client =
          Baton.builder(f.dataSource())
              .config(BatonConfig.builder().schema(schema).queue("default", 1).build())
              .handler(
                  Ping.class,
                  (ctx, p) -> {
                    started.countDown();
                    Fixture.blockUntilInterrupted();
                  })
              .build()) {
        client.start();
        long id = client.enqueue(new Ping(1)).job().id();
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(client.cancel(id)).contains(JobState.RUNNING);
        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> client.job(id).orElseThrow().state() == JobState.CANCELLED);
      } finally {
        f.db().execute("DROP SCHEMA \"" + schema + "\" CASCADE");
      }
    }
  }
}
