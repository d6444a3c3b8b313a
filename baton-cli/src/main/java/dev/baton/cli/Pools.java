package dev.baton.cli;

import com.zaxxer.hikari.HikariConfig;
import java.time.Duration;

/**
 * The HikariCP settings Baton wants on a pool it works on (docs/operations/pooling.md, "Pool
 * settings"), applied to the pools the {@code baton} command creates: its worker's and the demo's.
 */
public final class Pools {

  /** How often an idle pooled connection is checked, so dead ones are replaced between borrows. */
  public static final Duration KEEPALIVE_TIME = Duration.ofSeconds(30);

  /** How long checking a connection on borrow may take before it counts as broken. */
  public static final Duration VALIDATION_TIMEOUT = Duration.ofSeconds(2);

  private Pools() {}

  /**
   * Sets keepalive and validation timeouts on {@code cfg}, and TCP keepalive on its connections.
   * Returns {@code cfg}.
   */
  public static HikariConfig forBaton(HikariConfig cfg) {
    cfg.setKeepaliveTime(KEEPALIVE_TIME.toMillis());
    cfg.setValidationTimeout(VALIDATION_TIMEOUT.toMillis());
    cfg.addDataSourceProperty("tcpKeepAlive", "true");
    return cfg;
  }
}
