package dev.baton;

/**
 * The root of every exception Baton throws. Unchecked: a caller catches it only where it can act.
 *
 * <p>Messages follow one shape: {@code <what failed>[ for <ids>]: <why>[; <remedy>]}. A wrapped
 * {@link java.sql.SQLException} stays available as the cause, with its SQL state.
 */
public class BatonException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Creates an exception with a message in the shape described on this class. */
  public BatonException(String message) {
    super(message);
  }

  /** Creates an exception with a message and the cause it wraps. */
  public BatonException(String message, Throwable cause) {
    super(message, cause);
  }
}
