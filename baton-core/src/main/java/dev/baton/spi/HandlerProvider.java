package dev.baton.spi;

import dev.baton.BatonConfig;
import dev.baton.JobArgs;
import dev.baton.JobHandler;
import dev.baton.PeriodicJob;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * Supplies job handlers (and periodic jobs) to a worker process that is not the application's own
 * code, such as {@code baton worker}: the worker finds every provider with {@link
 * java.util.ServiceLoader}, calls {@link #register} on each once while it builds its client, then
 * starts the client.
 *
 * <p>To ship handlers this way, implement this interface in a public class with a public no-arg
 * constructor, and list the class's binary name in the jar's {@code
 * META-INF/services/dev.baton.spi.HandlerProvider} (one per line):
 *
 * <pre>{@code
 * public final class MailHandlers implements HandlerProvider {
 *   @Override
 *   public void register(Registrar r) {
 *     DataSource ds = r.dataSource();
 *     r.handler(SendEmail.class, (ctx, email) -> {
 *       try (Connection c = ds.getConnection()) {
 *         c.setAutoCommit(false);
 *         insertIntoOutbox(c, email, ctx.idempotencyKey());
 *         ctx.completeIn(c);
 *         c.commit();
 *       }
 *     });
 *     r.periodic(PeriodicJob.cron("mail-digest", "0 7 * * *", new SendDigest()));
 *   }
 * }
 * }</pre>
 *
 * <p>The worker decides which queues it works and with what concurrency, its node id and schema
 * ({@link Registrar#config()}); a provider only adds handlers and periodic jobs. Register the same
 * periodic jobs on every node that may lead (see {@link PeriodicJob}).
 */
@FunctionalInterface
public interface HandlerProvider {

  /**
   * Registers this provider's handlers and periodic jobs with {@code registrar}. Called once per
   * worker, before its client starts, on the thread that builds it. Registering after this returns
   * throws {@link IllegalStateException}; {@link Registrar#dataSource()} and {@link
   * Registrar#config()} may be kept for the handlers.
   *
   * @throws dev.baton.InvalidConfigException from the registrar, e.g. when a kind already has a
   *     handler (of this or another provider)
   */
  void register(Registrar registrar);

  /**
   * What a provider adds to the client being built. The methods mirror {@link
   * dev.baton.Baton.Builder}'s; a kind has one handler per client, whichever provider registers it.
   */
  interface Registrar {

    /**
     * Registers {@code handler} for the kind of {@code argsType}, with the client's job timeout.
     *
     * @throws dev.baton.InvalidConfigException if the kind already has a handler
     */
    <A extends JobArgs> Registrar handler(Class<A> argsType, JobHandler<A> handler);

    /**
     * Registers {@code handler} for the kind of {@code argsType} with its own timeout per attempt.
     *
     * @throws dev.baton.InvalidConfigException if the kind already has a handler, or the timeout is
     *     under 10 ms
     */
    <A extends JobArgs> Registrar handler(
        Class<A> argsType, Duration timeout, JobHandler<A> handler);

    /**
     * Registers a periodic job, enqueued by whichever node leads the cluster.
     *
     * @throws dev.baton.InvalidConfigException if a periodic job of that name is registered
     */
    Registrar periodic(PeriodicJob job);

    /**
     * The worker's connection pool, the one its client uses: for handlers that write in the job's
     * transaction ({@code ctx.completeIn(connection)}) or use the {@link dev.baton.inbox.Inbox}.
     */
    DataSource dataSource();

    /** The worker's client config: schema, node id, the queues it works. */
    BatonConfig config();
  }
}
