package dev.baton.spring.boot;

import dev.baton.InvalidConfigException;

/**
 * A {@code baton.*} property was rejected when the {@code Baton} bean was built. Its {@link
 * #property()} is the Spring property ({@code baton.lease}), its {@link #received()} the value as
 * the application's configuration gave it ({@code "100ms"}), and its cause Baton's own rejection.
 */
public class InvalidBatonPropertyException extends InvalidConfigException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception for Spring property {@code property}, caused by {@code cause}. */
  public InvalidBatonPropertyException(
      String property, String expected, Object received, Throwable cause) {
    super(property, expected, received);
    initCause(cause);
  }
}
