package dev.baton;

import java.util.regex.Pattern;

/**
 * One queue a client works, and how many of its jobs may run at once on this client.
 *
 * @param name 1-64 characters of letters, digits and {@code _ - .}, starting with a letter or digit
 * @param concurrency jobs of this queue running at once on this client, 1..10,000
 */
public record QueueConfig(String name, int concurrency) {

  // compiled once: every EnqueueOptions naming a queue checks its name
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");

  /** Concurrency used by {@link BatonConfig.Builder#queue(String)}: 16. */
  public static final int DEFAULT_CONCURRENCY = 16;

  /** Validates name and concurrency. */
  public QueueConfig {
    requireValidName(name);
    if (concurrency < 1 || concurrency > 10_000) {
      throw new InvalidConfigException(
          "concurrency of queue \"" + name + "\"", "1..10000", concurrency);
    }
  }

  /** Whether {@code name} is a valid queue name. */
  public static boolean isValidName(String name) {
    return name != null && NAME.matcher(name).matches();
  }

  /**
   * Returns {@code name} if it is a valid queue name.
   *
   * @throws InvalidConfigException naming what a queue name must be, if it is not one
   */
  public static String requireValidName(String name) {
    if (!isValidName(name)) {
      throw new InvalidConfigException(
          "queue name",
          "1-64 characters of letters, digits and _ - ., starting with a letter or digit",
          name);
    }
    return name;
  }
}
