package dev.baton.internal.node;

import dev.baton.internal.Outage;
import dev.baton.internal.Service;
import dev.baton.internal.producer.Producer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A node's producers, one per queue, started and stopped as one service: a stop tells every one of
 * them to stop claiming before it waits for any, so no queue claims on while another's producer is
 * awaited. Not public API.
 */
final class ProducerGroup implements Service {
  private static final int FIRST_CLAIM_WAIT_SECONDS = 5;

  private final List<Producer> producers;

  ProducerGroup(List<Producer> producers) {
    this.producers = producers;
  }

  @Override
  public ProducerGroup reportingTo(Outage outage) {
    producers.forEach(p -> p.reportingTo(outage));
    return this;
  }

  /**
   * Starts every producer, then waits up to {@value #FIRST_CLAIM_WAIT_SECONDS} s for each one's
   * claim of what waited while none ran, so that a node's start returns with its backlog claimed
   * and a job enqueued after the start finds the older ones already taken or still ahead of it.
   */
  @Override
  public void start() {
    producers.forEach(Producer::start);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(FIRST_CLAIM_WAIT_SECONDS);
    try {
      for (Producer p : producers) {
        p.awaitFirstClaim(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops every producer, waiting up to {@code timeout} for each. */
  @Override
  public void stop(Duration timeout) throws InterruptedException {
    producers.forEach(Producer::requestStop);
    boolean interrupted = false;
    for (Producer p : producers) {
      while (true) {
        try {
          p.stop(timeout);
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    }
    if (interrupted) {
      throw new InterruptedException("interrupted while stopping the producers");
    }
  }
}
