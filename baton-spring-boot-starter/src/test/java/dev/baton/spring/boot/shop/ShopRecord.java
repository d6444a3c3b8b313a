package dev.baton.spring.boot.shop;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Component;

/** What the shop's handlers did, for the tests to read. */
@Component
public class ShopRecord {
  private final Set<String> confirmed = ConcurrentHashMap.newKeySet();
  private final Set<String> blocked = ConcurrentHashMap.newKeySet();

  void confirmed(String customer) {
    confirmed.add(customer);
  }

  void blockStarted(String marker) {
    blocked.add(marker);
  }

  /** Whether a confirmation of {@code customer}'s order was handled. */
  public boolean wasConfirmed(String customer) {
    return confirmed.contains(customer);
  }

  /** Whether the {@link Block} job with {@code marker} has started. */
  public boolean hasBlockStarted(String marker) {
    return blocked.contains(marker);
  }
}
