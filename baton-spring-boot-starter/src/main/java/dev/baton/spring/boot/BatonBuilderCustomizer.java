package dev.baton.spring.boot;

import dev.baton.Baton;

/**
 * A bean that adjusts the {@code Baton} client before it is built, after the starter registered the
 * config, handler beans and periodic jobs: e.g. a handler with a timeout of its own, or a Jackson
 * {@code ObjectMapper}. Customizers run in {@code @Order} order.
 */
@FunctionalInterface
public interface BatonBuilderCustomizer {

  /** Adjusts {@code builder}. */
  void customize(Baton.Builder builder);
}
