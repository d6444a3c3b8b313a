package dev.baton.cli.demo;

import java.time.Duration;

/**
 * What one run of the demo does.
 *
 * @param orders orders to place
 * @param pods worker pods (JVMs) at the start
 * @param concurrency jobs each pod runs at once
 * @param lease the pods' lease (and leader TTL): how long a dead or frozen pod holds its jobs
 * @param faults whether to kill a pod, freeze one and terminate the pods' connections
 * @param rollbackPercent share of order transactions that roll back, 0..100
 * @param seed seed of the rollback draws
 * @param schema the demo's Baton schema; the shop's tables go to {@code <schema>_shop}
 * @param metricsHost address the pods' Prometheus endpoints bind to
 * @param metricsPort port of the first pod's endpoint (the next pods take the next ports); 0 for
 *     ephemeral ports
 * @param timeout how long the run may take before it is called failed
 * @param unsafeProvider a provider that ignores idempotency keys and fences (to see the checks
 *     fail)
 */
public record DemoSettings(
    int orders,
    int pods,
    int concurrency,
    Duration lease,
    boolean faults,
    int rollbackPercent,
    long seed,
    String schema,
    String metricsHost,
    int metricsPort,
    Duration timeout,
    boolean unsafeProvider) {

  /** The shop's schema: orders and the mail provider's ledger. */
  public String shopSchema() {
    return schema + "_shop";
  }
}
