package dev.baton.cli.docs;

import dev.baton.JobArgs;
import dev.baton.PeriodicJob;
import dev.baton.spi.HandlerProvider;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The handler provider of docs/cli.md, as written there; {@link HandlerProviderDocExampleTest}
 * registers it as the worker does and runs its job.
 */
// docs:begin provider
public final class MailHandlers implements HandlerProvider {
  // docs:end provider
  /** The job of the provider's handler: an order email. */
  public record SendEmail(String to) implements JobArgs {}

  /** The provider's periodic job: a daily digest. */
  public record SendDigest() implements JobArgs {}

  /** What the application's mail client would do: here, keep the idempotency keys it was sent. */
  static final class Mailer {
    final List<String> sent = new CopyOnWriteArrayList<>();

    void send(SendEmail email, String idempotencyKey) {
      sent.add(email.to() + " " + idempotencyKey);
    }

    void sendDigest(String idempotencyKey) {
      sent.add("digest " + idempotencyKey);
    }
  }

  final Mailer mailer = new Mailer();

  // docs:begin provider
  @Override
  public void register(Registrar r) {
    r.handler(SendEmail.class, (ctx, email) -> mailer.send(email, ctx.idempotencyKey()));
    r.handler(SendDigest.class, (ctx, digest) -> mailer.sendDigest(ctx.idempotencyKey()));
    r.periodic(PeriodicJob.cron("mail-digest", "0 7 * * *", new SendDigest()));
  }
}
// docs:end provider
