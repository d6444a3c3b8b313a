package dev.baton.internal.held;

/**
 * How a handler's attempt ended, as its handler left it: what the metrics count per queue and kind.
 * Not public API.
 */
public enum AttemptEnd {
  /** The handler returned. */
  SUCCEEDED,
  /** The handler threw, timed out or its args could not be read. */
  FAILED,
  /** The handler asked for the job to be discarded. */
  DISCARDED,
  /** The handler snoozed the job. */
  SNOOZED,
  /** The handler cancelled the job. */
  CANCELLED;

  /** The name as a tag value: lower case. */
  public String tag() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
