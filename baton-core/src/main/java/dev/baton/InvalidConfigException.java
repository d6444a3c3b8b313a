package dev.baton;

/**
 * A configuration value was rejected when a config was built. The message names the property, what
 * was expected and what was received.
 */
public class InvalidConfigException extends BatonException {
  private static final long serialVersionUID = 1L;
  private final String property;

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
  }

  /** The name of the rejected property, e.g. {@code schema} or {@code queue}. */
  public String property() {
    return property;
  }
}
