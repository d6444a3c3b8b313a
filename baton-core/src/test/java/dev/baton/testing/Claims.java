package dev.baton.testing;

import dev.baton.internal.db.HolderStore;
import java.time.Duration;

/** Claim parameters for tests that drive the store's statements directly. */
public final class Claims {
  private Claims() {}

  /**
   * Up to {@code limit} jobs of queue {@code default} for {@code node}, with a lease and a default
   * timeout of five minutes and no per-kind timeouts.
   */
  public static HolderStore.ClaimParams by(String node, int limit) {
    return new HolderStore.ClaimParams(
        "default",
        limit,
        node,
        Duration.ofMinutes(5),
        new String[0],
        new Long[0],
        Duration.ofMinutes(5));
  }
}
