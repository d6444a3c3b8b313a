package dev.baton.internal.held;

/**
 * One call of a batch handler, shared by the held jobs it works: told when one of them is told to
 * stop, so that it decides whether the call's thread is interrupted. Not public API.
 */
public interface BatchCall {
  /**
   * A job of this call was told to stop for {@code reason}; {@code first} when it had not been told
   * before. Called under that job's lock, while the job is attached to the call.
   */
  void stopped(boolean first, StopReason reason);
}
