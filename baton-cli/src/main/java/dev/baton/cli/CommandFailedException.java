package dev.baton.cli;

/**
 * The command ran and could not do what was asked (an unknown job id, a running job): one line on
 * stderr, exit {@value BatonCli#FAILED}.
 */
final class CommandFailedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  CommandFailedException(String message) {
    super(message);
  }
}
