package dev.baton.internal;

import java.time.Duration;

/**
 * A long-lived part of a node with threads of its own: producer, poller, completer, heartbeater,
 * notifier, cluster. One contract for all: {@link #start()} returns when running, {@link
 * #stop(Duration)} returns when stopped (or the timeout passed), stop before start and stop twice
 * are fine, and a stopped service never starts again. Not public API.
 */
public interface Service {

  /**
   * Reports connection losses to {@code outage}, shared by every service of a node, so that an
   * outage is logged once however many threads fail meanwhile; call before {@link #start()}.
   * Returns this. A service that reports no connection losses ignores it.
   */
  default Service reportingTo(Outage outage) {
    return this;
  }

  /** Starts the service's threads; a second call, or a call after a stop, does nothing. */
  void start();

  /** Stops the service and waits up to {@code timeout} for its threads to end. */
  void stop(Duration timeout) throws InterruptedException;
}
