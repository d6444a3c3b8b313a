package dev.baton.cli.lab;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/** How a lab worker claims its next job. */
public enum Strategy {
  /**
   * Read the first available id, then mark it running by id alone. Two workers that read before
   * either writes both run the job: duplicates.
   */
  NAIVE("naive"),

  /**
   * Read the first available id, then mark it running only if it is still available; a write that
   * matches no row lost the race, and the worker reads again (a retry).
   */
  OPTIMISTIC("optimistic"),

  /**
   * Lock the first available row with {@code FOR UPDATE}: every worker queues on the same head row,
   * so claims happen one at a time.
   */
  PESSIMISTIC("pessimistic"),

  /**
   * Lock the first available row no other worker holds with {@code FOR UPDATE SKIP LOCKED}: workers
   * claim different rows at once and never wait for each other.
   */
  SKIP_LOCKED("skip-locked");

  private final String id;

  Strategy(String id) {
    this.id = id;
  }

  /** The name on the command line and in the output, e.g. {@code skip-locked}. */
  public String id() {
    return id;
  }

  /** The prefix of this strategy's lab tables, e.g. {@code skip_locked}. */
  public String tablePrefix() {
    return id.replace('-', '_');
  }

  /** Whether the claim takes a row lock in a transaction (pessimistic, skip-locked). */
  public boolean locks() {
    return this == PESSIMISTIC || this == SKIP_LOCKED;
  }

  /** The strategy named {@code id}, if any. */
  public static Optional<Strategy> byId(String id) {
    return Arrays.stream(values()).filter(s -> s.id.equals(id)).findFirst();
  }

  /** All ids, comma-separated, in the order the lab runs them by default. */
  public static String ids() {
    return Arrays.stream(values()).map(Strategy::id).collect(Collectors.joining(", "));
  }
}
