package dev.baton.internal.db;

/**
 * A leader write found that its term is over (another node was elected, or the lease ran out): it
 * changed nothing. The caller stops acting as leader. Not public API.
 */
public final class NotLeaderException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** For {@code lead}. */
  public NotLeaderException(Leadership lead) {
    super(
        "node "
            + lead.nodeId()
            + " no longer leads "
            + lead.role()
            + " in term "
            + lead.term()
            + "; the write changed nothing");
  }
}
