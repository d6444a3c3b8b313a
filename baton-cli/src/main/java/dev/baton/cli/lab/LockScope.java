package dev.baton.cli.lab;

import java.util.Arrays;
import java.util.Optional;

/**
 * How long the locking strategies (pessimistic, skip-locked) keep their claim transaction open.
 * Naive and optimistic take no lock: their claim commits at once in both scopes.
 */
public enum LockScope {
  /**
   * Lock, mark running, commit; the job is worked and marked completed afterwards, outside the
   * transaction. How Baton claims (a short claim, no transaction open while a handler runs).
   */
  CLAIM("claim"),

  /**
   * Lock, mark running, work the job, mark it completed, commit: the row stays locked while the job
   * is worked. The classic "queue table" pattern.
   */
  WORK("work");

  private final String id;

  LockScope(String id) {
    this.id = id;
  }

  /** The name on the command line and in the output. */
  public String id() {
    return id;
  }

  /** The scope named {@code id}, if any. */
  public static Optional<LockScope> byId(String id) {
    return Arrays.stream(values()).filter(s -> s.id.equals(id)).findFirst();
  }
}
