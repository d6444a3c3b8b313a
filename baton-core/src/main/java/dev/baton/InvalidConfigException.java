package dev.baton;

/**
 * A configuration value was rejected when a config was built. The message names the property, what
 * was expected and what was received.
 */
public class InvalidConfigException extends BatonException {
  private static final long serialVersionUID = 1L;
  private final String property;
  private final String expected;
  private final transient Object received;

  /** Creates the exception for {@code property}. */
  public InvalidConfigException(String property, String expected, Object received) {
    super(
        "invalid Baton config: "
            + property
            + " must be "
            + expected
            + ", got "
            + (received instanceof String ? "\"" + received + "\"" : String.valueOf(received)));
    this.property = property;
    this.expected = expected;
    this.received = received;
  }

  /** The name of the rejected property, e.g. {@code schema} or {@code queue}. */
  public String property() {
    return property;
  }

  /**
   * What the property must be, as the message says it, e.g. {@code between PT0.5S and PT1H}; lets
   * an integration (such as the Spring Boot starter) restate the error under its own property name.
   */
  public String expected() {
    return expected;
  }

  /** The rejected value as it was given to the builder; may be null. */
  public Object received() {
    return received;
  }
}
