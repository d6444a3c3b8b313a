package dev.baton;

/**
 * An enqueue was rejected before anything was written: args too large or not serialisable, an
 * option out of range, a bad idempotency key. Nothing else in the same call was written either.
 */
public class InvalidJobException extends BatonException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception with a message naming what was wrong and what was expected. */
  public InvalidJobException(String message) {
    super(message);
  }

  /** Creates the exception with a message and its cause. */
  public InvalidJobException(String message, Throwable cause) {
    super(message, cause);
  }
}
