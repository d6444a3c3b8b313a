package dev.baton.internal.db;

/**
 * A term of leadership: node {@code nodeId} leads {@code role} in {@code term}. Every leader write
 * carries it and changes nothing unless the leader row still holds this term. Not public API.
 */
public record Leadership(String role, String nodeId, long term) {

  /** The role of the node that runs maintenance. */
  public static final String MAINTENANCE = "maintenance";
}
