package dev.baton.dashboard;

/** A request the dashboard refuses, with the status and the message its answer carries. */
final class BadRequest extends RuntimeException {
  private final int status;

  BadRequest(int status, String message) {
    super(message, null, false, false);
    this.status = status;
  }

  /** A {@code 400}: a parameter is malformed or out of range. */
  static BadRequest of(String message) {
    return new BadRequest(400, message);
  }

  int status() {
    return status;
  }
}
