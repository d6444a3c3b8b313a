package dev.baton.internal.maintenance;

import dev.baton.internal.db.Leadership;

/**
 * A pass the leader runs at an interval. Every write it makes is fenced by {@code lead}'s term; a
 * pass that finds the term over throws {@link dev.baton.internal.db.NotLeaderException} having
 * changed nothing. Not public API.
 */
public interface MaintenanceService {

  /** The service's name, for logs and thread names. */
  String name();

  /** One pass as leader {@code lead}. Returns how many rows it changed. */
  int runOnce(Leadership lead);
}
