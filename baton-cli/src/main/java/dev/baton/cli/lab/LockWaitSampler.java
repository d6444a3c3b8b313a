package dev.baton.cli.lab;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Estimates how long the workers waited for row locks: every {@link #INTERVAL} it counts the
 * workers' backends that {@code pg_stat_activity} shows waiting for a row ({@code transactionid}:
 * for the holder's transaction to end, {@code tuple}: in line behind another waiter), and adds
 * count × time since the previous sample. An unbiased estimate of the summed waits, without timing
 * anything inside the workers; waits on other locks (relation extension) are not counted.
 */
final class LockWaitSampler {
  static final Duration INTERVAL = Duration.ofMillis(5);

  static final String COUNT_WAITING =
      """
      SELECT count(*) FROM pg_stat_activity
      WHERE pid = ANY (?) AND wait_event_type = 'Lock' AND wait_event IN ('transactionid', 'tuple')
      """;

  private final Connection connection;
  private final List<Integer> pids;
  private final Thread thread;
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private volatile boolean running = true;
  private long waitedNanos;

  LockWaitSampler(Connection connection, List<Integer> pids) {
    this.connection = connection;
    this.pids = List.copyOf(pids);
    this.thread = new Thread(this::sample, "baton-lab-sampler");
    this.thread.setDaemon(true);
  }

  /** Starts sampling. */
  void start() {
    thread.start();
  }

  /**
   * Stops sampling and returns the estimated wait.
   *
   * @throws LabException when sampling failed
   */
  Duration stop() throws InterruptedException {
    running = false;
    thread.join();
    Throwable t = failure.get();
    if (t != null) {
      throw new LabException("cannot sample lock waits in pg_stat_activity: " + t.getMessage(), t);
    }
    return Duration.ofNanos(waitedNanos);
  }

  private void sample() {
    try (PreparedStatement ps = connection.prepareStatement(COUNT_WAITING)) {
      Array pidArray = connection.createArrayOf("int4", pids.toArray());
      ps.setArray(1, pidArray);
      long last = System.nanoTime();
      while (running) {
        int waiting;
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          waiting = rs.getInt(1);
        }
        long now = System.nanoTime();
        waitedNanos += waiting * (now - last);
        last = now;
        TimeUnit.NANOSECONDS.sleep(INTERVAL.toNanos());
      }
    } catch (SQLException | RuntimeException e) {
      failure.set(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
