package dev.baton.internal.admission;

import dev.baton.internal.db.BacklogCapStore;
import dev.baton.internal.db.CappedQueues;
import dev.baton.internal.db.Db;
import dev.baton.internal.db.SchemaName;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client's view of which queues have a backlog cap, read from the queue table and trusted for
 * {@link #VIEW_LIFETIME} from the moment its read was sent. An enqueue asks {@link #mayBeCapped}: a
 * queue outside the view runs the plain enqueue; one inside it is admitted by the database first.
 *
 * <p>Why a bounded lag is safe: a view read at time {@code t} (its query sent at {@code t}) sees
 * every cap committed before {@code t}. It is used only until {@code t + VIEW_LIFETIME}, after
 * which the next enqueue reads it again on its own connection. So a cap committed at {@code T} is
 * checked by every enqueue of every client that decides after {@code T + VIEW_LIFETIME}; {@code
 * BatonAdmin.setBacklogCap} returns only after that time has passed (measured after its commit), so
 * once it has returned no client enqueues to the queue unchecked. A removed or raised cap needs no
 * wait: the database reads the cap itself, and a queue still in a view is admitted by a check that
 * finds room.
 *
 * <p>With {@code refreshing}, a daemon thread {@code baton-caps} reads the view every half lifetime
 * while the client enqueues (stopping after 30 seconds without an enqueue, restarted by the next),
 * so an enqueue finds the view fresh and runs no extra statement; only when that read is late (the
 * database slow) or failed (the thread then stops; the enqueue starts it again) does an enqueue
 * read the view itself, once. Without {@code refreshing} (the operator API, which starts no thread)
 * an enqueue reads the view when it is stale.
 *
 * <p>Thread-safe. Not public API.
 */
public final class BacklogCaps implements CappedQueues, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(BacklogCaps.class);

  /** How long a read of the caps is trusted, from the moment it was sent: 2 seconds. */
  public static final Duration VIEW_LIFETIME = Duration.ofSeconds(2);

  private static final long LIFETIME_NANOS = VIEW_LIFETIME.toNanos();
  private static final long REFRESH_NANOS = LIFETIME_NANOS / 2;
  private static final long IDLE_NANOS = Duration.ofSeconds(30).toNanos();

  private record View(Set<String> capped, long readAtNanos) {}

  private final DataSource dataSource;
  private final BacklogCapStore store;
  private final boolean refreshing;
  private volatile View view;
  private volatile long lastUseNanos;
  private ScheduledThreadPoolExecutor refresher; // guarded by this

  /**
   * A view of {@code schema}'s caps, read on {@code dataSource} by the refresh thread when {@code
   * refreshing}, else only by enqueues on their own connections.
   */
  public BacklogCaps(DataSource dataSource, SchemaName schema, boolean refreshing) {
    this.dataSource = dataSource;
    this.store = new BacklogCapStore(schema);
    this.refreshing = refreshing;
  }

  @Override
  public boolean mayBeCapped(Connection c, String queue) throws SQLException {
    long now = System.nanoTime();
    lastUseNanos = now;
    View v = view;
    if (v == null || now - v.readAtNanos() >= LIFETIME_NANOS) {
      v = read(c);
      startRefresher();
    }
    return v.capped().contains(queue);
  }

  private View read(Connection c) throws SQLException {
    long at = System.nanoTime(); // before the query: its snapshot is newer
    View v = new View(Set.copyOf(store.caps(c).keySet()), at);
    synchronized (this) {
      View current = view;
      if (current == null || current.readAtNanos() - at < 0) {
        view = v;
      }
    }
    return v;
  }

  private synchronized void startRefresher() {
    if (!refreshing || refresher != null) {
      return;
    }
    ScheduledThreadPoolExecutor r =
        new ScheduledThreadPoolExecutor(
            1,
            task -> {
              Thread t = new Thread(task, "baton-caps");
              t.setDaemon(true);
              return t;
            });
    r.scheduleWithFixedDelay(this::refresh, REFRESH_NANOS, REFRESH_NANOS, TimeUnit.NANOSECONDS);
    refresher = r;
  }

  private void refresh() {
    if (System.nanoTime() - lastUseNanos > IDLE_NANOS) {
      stopRefresher(); // the next enqueue reads the view and starts it again
      return;
    }
    try {
      Db.inTransaction(dataSource, "cannot read the backlog caps", this::read);
    } catch (RuntimeException e) {
      // Nothing is lost: the next enqueue finds the view stale, reads it on its own connection
      // (failing as any enqueue would if the database is gone) and starts the thread again. A
      // client left open after its pool was closed or its schema dropped (tests) stops retrying.
      log.debug("cannot read the backlog caps; the next enqueue reads them itself", e);
      stopRefresher();
    }
  }

  private synchronized void stopRefresher() {
    if (refresher != null) {
      refresher.shutdownNow();
      refresher = null;
    }
  }

  /** Stops the refresh thread; a later enqueue starts it again. Closing twice is fine. */
  @Override
  public void close() {
    stopRefresher();
  }
}
