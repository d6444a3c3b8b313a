package dev.baton.test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock that moves only when a test moves it: the time {@link TestBaton#drain} works by. Give it
 * to the code under test as its {@link Clock}, so that a run-at time it computes ({@code
 * clock.instant().plus(...)}) is on the same clock as the drain.
 *
 * <p>{@link #create()} starts one day ahead of the system clock, so every run-at time taken from it
 * is later than the database's own clock: such a job is stored {@code scheduled} and becomes due
 * only when this clock reaches its time, never by time passing while the test runs. Millisecond
 * precision (retry and snooze delays are written to the millisecond). Thread-safe.
 */
public final class TestClock extends Clock {
  private final ZoneId zone;
  private final AtomicReference<Instant> now; // shared with the clocks withZone returns

  private TestClock(AtomicReference<Instant> now, ZoneId zone) {
    this.now = now;
    this.zone = zone;
  }

  /** A clock one day ahead of the system clock, in UTC. */
  public static TestClock create() {
    return at(Instant.now().plus(Duration.ofDays(1)));
  }

  /** A clock reading {@code start} (cut to milliseconds), in UTC. */
  public static TestClock at(Instant start) {
    Objects.requireNonNull(start, "start");
    return new TestClock(
        new AtomicReference<>(start.truncatedTo(ChronoUnit.MILLIS)), ZoneOffset.UTC);
  }

  @Override
  public Instant instant() {
    return now.get();
  }

  @Override
  public ZoneId getZone() {
    return zone;
  }

  /** This clock in {@code zone}; advancing either advances both. */
  @Override
  public TestClock withZone(ZoneId zone) {
    return new TestClock(now, zone);
  }

  /**
   * Moves this clock forward by {@code d}.
   *
   * @throws IllegalArgumentException if {@code d} is negative (time only moves forward)
   */
  public void advance(Duration d) {
    Objects.requireNonNull(d, "duration");
    if (d.isNegative()) {
      throw new IllegalArgumentException("a test clock only moves forward, got " + d);
    }
    now.updateAndGet(t -> t.plus(d).truncatedTo(ChronoUnit.MILLIS));
  }

  @Override
  public String toString() {
    return "TestClock[" + now.get() + "]";
  }
}
