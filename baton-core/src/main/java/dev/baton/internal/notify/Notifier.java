package dev.baton.internal.notify;

import dev.baton.internal.db.ListenStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one LISTEN connection of a client and its fan-out.
 *
 * <p>One thread, {@code baton-notifier}, holds a connection from the pool for as long as the client
 * runs, listens on the schema's insert and control channels, and hands each notification to a
 * callback (wake a producer; interrupt a cancelled job). Notifications are hints: if the connection
 * breaks, it reconnects with backoff and calls {@code onReconnect} so producers claim at once, and
 * the fallback poll covers whatever was missed meanwhile.
 *
 * <p>Not public API.
 */
public final class Notifier implements dev.baton.internal.Service {
  private static final Logger log = LoggerFactory.getLogger(Notifier.class);
  // At most a second between reconnects, so wake-ups resume soon after the database is back.
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(1);

  private final DataSource dataSource;
  private final String insertChannel;
  private final String controlChannel;
  private final Consumer<String> onInsert;
  private final Consumer<String> onControl;
  private final Runnable onReconnect;
  private final Thread thread;
  private final java.util.concurrent.CountDownLatch firstListen =
      new java.util.concurrent.CountDownLatch(1);
  private final dev.baton.internal.ServiceState state = new dev.baton.internal.ServiceState();
  private volatile boolean running;
  private volatile dev.baton.internal.Outage outage = new dev.baton.internal.Outage();

  /** A notifier; call {@link #start()}. Channel names are validated identifiers. */
  public Notifier(
      DataSource dataSource,
      String insertChannel,
      String controlChannel,
      Consumer<String> onInsert,
      Consumer<String> onControl,
      Runnable onReconnect) {
    this.dataSource = dataSource;
    this.insertChannel = insertChannel;
    this.controlChannel = controlChannel;
    this.onInsert = onInsert;
    this.onControl = onControl;
    this.onReconnect = onReconnect;
    this.thread = new Thread(this::loop, "baton-notifier");
    this.thread.setDaemon(true);
  }

  /**
   * Reports connection losses to {@code outage}, shared with the client's other services, so an
   * outage is logged once; call before {@link #start()}. Returns this.
   */
  @Override
  public Notifier reportingTo(dev.baton.internal.Outage outage) {
    this.outage = outage;
    return this;
  }

  /** Starts listening. */
  @Override
  public void start() {
    state.start(
        () -> {
          running = true;
          thread.start();
        });
  }

  /**
   * Waits up to {@code timeout} until the first LISTEN is in place, so that claims made after this
   * see every job whose NOTIFY they could otherwise have missed. Returns whether it is.
   */
  public boolean awaitListening(Duration timeout) throws InterruptedException {
    return firstListen.await(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
  }

  /** Stops listening and waits up to {@code timeout} for the thread to end. */
  @Override
  public void stop(Duration timeout) throws InterruptedException {
    if (!state.stop(() -> running = false)) {
      return;
    }
    thread.interrupt();
    thread.join(Math.max(1, timeout.toMillis()));
  }

  private void loop() {
    long backoffMillis = 100;
    boolean first = true;
    while (running) {
      try (Connection c = dataSource.getConnection()) {
        if (!c.getAutoCommit()) {
          c.setAutoCommit(true);
        }
        ListenStore.listen(c, insertChannel, controlChannel);
        firstListen.countDown();
        outage.answered();
        if (!first) {
          log.debug("notifier reconnected; claiming at once in case notifications were missed");
          onReconnect.run();
        }
        first = false;
        backoffMillis = 100;
        PGConnection pg = c.unwrap(PGConnection.class);
        while (running) {
          PGNotification[] batch = pg.getNotifications(500);
          if (batch == null) {
            continue;
          }
          for (PGNotification n : batch) {
            dispatch(n);
          }
        }
        ListenStore.unlistenAll(c);
      } catch (SQLException | RuntimeException e) {
        if (!running) {
          return;
        }
        first = false;
        if (!outage.failed("the LISTEN connection", e)) {
          log.warn(
              "LISTEN connection failed; reconnecting in {} ms (polling meanwhile)",
              backoffMillis,
              e);
        }
        try {
          Thread.sleep(backoffMillis);
        } catch (InterruptedException ie) {
          if (!running) {
            return;
          }
        }
        backoffMillis = Math.min(backoffMillis * 2, MAX_BACKOFF.toMillis());
      }
    }
  }

  private void dispatch(PGNotification n) {
    try {
      if (insertChannel.equals(n.getName())) {
        onInsert.accept(n.getParameter());
      } else if (controlChannel.equals(n.getName())) {
        onControl.accept(n.getParameter());
      }
    } catch (RuntimeException e) {
      log.warn("cannot handle notification on {}: {}", n.getName(), n.getParameter(), e);
    }
  }
}
