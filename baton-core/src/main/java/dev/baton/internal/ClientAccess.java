package dev.baton.internal;

import dev.baton.Baton;
import dev.baton.internal.held.NodeCounters;
import javax.sql.DataSource;

/**
 * What core's own public packages outside {@code dev.baton} (the metrics binder) may read of a
 * {@link Baton} client without it being public API: its pool and its node counters. {@link Baton}
 * installs the accessor when its class is initialised, which has happened once a caller holds a
 * client. Not public API.
 */
public final class ClientAccess {

  /** Reads a client's internals; implemented by {@link Baton}. */
  public interface Accessor {
    /** The client's pool. */
    DataSource dataSource(Baton baton);

    /** The client's outcome counters and executor listener slot. */
    NodeCounters counters(Baton baton);
  }

  private static volatile Accessor accessor;

  private ClientAccess() {}

  /** Installs the accessor; called once, by {@link Baton}'s static initialiser. */
  public static void install(Accessor a) {
    accessor = a;
  }

  /** The accessor. */
  public static Accessor get() {
    Accessor a = accessor;
    if (a == null) {
      throw new IllegalStateException("Baton is not initialised"); // cannot happen with a client
    }
    return a;
  }
}
