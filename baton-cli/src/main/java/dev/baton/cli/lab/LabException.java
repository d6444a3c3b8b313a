package dev.baton.cli.lab;

/**
 * The lab could not run: a statement failed, a worker could not connect, the lab schema belongs to
 * something else. The message names what failed; the cause, when there is one, is the {@link
 * java.sql.SQLException}.
 */
public final class LabException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  LabException(String message) {
    super(message);
  }

  LabException(String message, Throwable cause) {
    super(message, cause);
  }
}
