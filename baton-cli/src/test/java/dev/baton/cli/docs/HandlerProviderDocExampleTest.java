package dev.baton.cli.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.JobArgs;
import dev.baton.JobHandler;
import dev.baton.PeriodicJob;
import dev.baton.admin.BatonAdmin;
import dev.baton.spi.HandlerProvider;
import dev.baton.testing.Fixture;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The provider of docs/cli.md registers a handler that runs with the job's idempotency key, and a
 * periodic job the client then lists.
 */
class HandlerProviderDocExampleTest {

  @Test
  void theProviderRegistersItsHandlerAndPeriodicJob() {
    try (Fixture f = new Fixture()) {
      BatonConfig config = f.config().queue("default", 2).build();
      Baton.Builder builder = Baton.builder(f.dataSource()).config(config);
      MailHandlers provider = new MailHandlers();
      provider.register(new OnBuilder(builder, f.dataSource(), config));
      Baton baton = builder.build();
      baton.start();
      try {
        long id = baton.enqueue(new MailHandlers.SendEmail("ann@example.com")).job().id();
        await().atMost(Duration.ofSeconds(15)).until(() -> provider.mailer.sent.size() == 1);
        assertThat(provider.mailer.sent)
            .containsExactly("ann@example.com baton:" + f.schema() + ":" + id);
        BatonAdmin admin = new BatonAdmin(f.dataSource(), f.schema());
        await()
            .atMost(Duration.ofSeconds(15))
            .until(() -> admin.periodic().stream().anyMatch(p -> p.name().equals("mail-digest")));
      } finally {
        baton.stop();
      }
    }
  }

  /** A registrar onto a client's builder, as the worker's is. */
  private record OnBuilder(Baton.Builder builder, DataSource dataSource, BatonConfig config)
      implements HandlerProvider.Registrar {
    @Override
    public <A extends JobArgs> HandlerProvider.Registrar handler(
        Class<A> argsType, JobHandler<A> handler) {
      builder.handler(argsType, handler);
      return this;
    }

    @Override
    public <A extends JobArgs> HandlerProvider.Registrar handler(
        Class<A> argsType, Duration timeout, JobHandler<A> handler) {
      builder.handler(argsType, timeout, handler);
      return this;
    }

    @Override
    public HandlerProvider.Registrar periodic(PeriodicJob job) {
      builder.periodic(job);
      return this;
    }
  }
}
