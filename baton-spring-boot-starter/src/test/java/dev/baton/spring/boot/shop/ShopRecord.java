package dev.baton.spring.boot.shop;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.stereotype.Component;

/** What the shop's handlers did, for the tests to read. */
@Component
public class ShopRecord {
  private final Set<String> confirmed = ConcurrentHashMap.newKeySet();
  private final Set<String> blocked = ConcurrentHashMap.newKeySet();
  private final AtomicInteger ticks = new AtomicInteger();
  private final Set<String> checked = ConcurrentHashMap.newKeySet();

  void confirmed(String customer) {
    confirmed.add(customer);
  }

  void ticked() {
    ticks.incrementAndGet();
  }

  /** How many periodic {@link Tick} jobs were handled. */
  public int ticks() {
    return ticks.get();
  }

  void checked(String sku) {
    checked.add(sku);
  }

  /** Whether the {@link RestockCheck} of {@code sku} was handled. */
  public boolean wasChecked(String sku) {
    return checked.contains(sku);
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
