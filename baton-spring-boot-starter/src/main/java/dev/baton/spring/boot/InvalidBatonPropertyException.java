package dev.baton.spring.boot;

import dev.baton.InvalidConfigException;

/**
 * A {@code baton.*} property was rejected when the {@code Baton} bean was built. Its {@link
 * #property()} is the Spring property ({@code baton.lease}), its {@link #received()} the value as
 * the application's configuration gave it ({@code "100ms"}), and its cause Baton's own rejection.
 */
public class InvalidBatonPropertyException extends InvalidConfigException {
  private static final long serialVersionUID = 1L;

  /** The sentence that says what to do, or null for "Set the property to what is expected". */
  private final String action;

  /**
   * Creates the exception for Spring property {@code property}, caused by {@code cause}; its {@link
   * #action()} is "Set {@code property} to {@code expected} in the configuration.", so {@code
   * expected} reads as a value (e.g. "between PT0.5S and PT1H").
   */
  public InvalidBatonPropertyException(
      String property, String expected, Object received, Throwable cause) {
    this(property, expected, received, null, cause);
  }

  /**
   * Creates the exception for Spring property {@code property}, with {@code action} the sentence
   * that says what to do, for a rule that a value alone does not satisfy (another property, a
   * dependency).
   */
  public InvalidBatonPropertyException(
      String property, String expected, Object received, String action, Throwable cause) {
    super(property, expected, received);
    this.action = action;
    initCause(cause);
  }

  /** What to do, as a sentence: the failure analysis's "Action". */
  public String action() {
    return action != null
        ? action
        : "Set " + property() + " to " + expected() + " in the configuration.";
  }
}
