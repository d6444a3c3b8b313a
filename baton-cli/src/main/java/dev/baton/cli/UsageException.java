package dev.baton.cli;

/**
 * The command line is wrong in a way picocli cannot see (no database URL, malformed JSON): one line
 * on stderr, exit {@value BatonCli#USAGE}.
 */
final class UsageException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  UsageException(String message) {
    super(message);
  }

  UsageException(String message, Throwable cause) {
    super(message, cause);
  }
}
