package dev.baton;

import java.time.Instant;

/**
 * The holder of a leader role as the database records it. Its lease may already have run out:
 * compare {@code expiresAt} with the database clock.
 *
 * @param role the role ({@code maintenance})
 * @param nodeId the node that holds it
 * @param term the term of its election; grows with every election
 * @param electedAt when this term began
 * @param expiresAt when its lease runs out unless renewed
 */
public record LeaderInfo(
    String role, String nodeId, long term, Instant electedAt, Instant expiresAt) {}
