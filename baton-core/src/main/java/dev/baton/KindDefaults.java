package dev.baton;

import dev.baton.internal.executor.HandlerEntry;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * A client's settings per kind, resolved once: each handler's timeout and retry policy, and the
 * queue and max attempts an enqueue of a kind takes where its options set none. The first that sets
 * a value wins: a timeout given at registration, the config's {@link BatonConfig#kind}, the handler
 * class's {@link KindSettings}, the args class's. Thread-safe.
 */
final class KindDefaults {
  private final BatonConfig config;
  private final Map<String, KindConfig> onHandlers; // from @KindSettings on handler classes
  // The enqueue defaults of each args class; KindConfig.none() (checked by identity) for the kinds
  // without a queue or max attempts of their own, so their enqueues pay one lookup.
  private final ClassValue<KindConfig> forEnqueue =
      new ClassValue<>() {
        @Override
        protected KindConfig computeValue(Class<?> type) {
          String kind = JobArgs.kindOf(type);
          KindConfig k =
              KindConfig.of(type)
                  .overriddenBy(onHandlers.getOrDefault(kind, KindConfig.none()))
                  .overriddenBy(config.kind(kind));
          return k.queue().isEmpty() && k.maxAttempts().isEmpty() ? KindConfig.none() : k;
        }
      };

  KindDefaults(BatonConfig config, Collection<HandlerEntry<?>> handlers) {
    this.config = config;
    Map<String, KindConfig> found = new HashMap<>();
    for (HandlerEntry<?> h : handlers) {
      KindConfig onHandler = KindConfig.of(h.registered().getClass());
      if (!onHandler.isEmpty()) {
        found.put(h.kind(), onHandler);
      }
    }
    this.onHandlers = Map.copyOf(found);
  }

  /**
   * {@code h} with its kind's timeout and retry policy; null where none is set (the client's
   * default).
   */
  <A extends JobArgs> HandlerEntry<A> applyTo(HandlerEntry<A> h) {
    KindConfig k =
        KindConfig.of(h.argsType())
            .overriddenBy(onHandlers.getOrDefault(h.kind(), KindConfig.none()))
            .overriddenBy(config.kind(h.kind()));
    Duration timeout = h.timeout() != null ? h.timeout() : k.timeout().orElse(null);
    return h.withSettings(new HandlerEntry.Settings(timeout, k.retryPolicy().orElse(null)));
  }

  /** {@code options} with the queue and max attempts of {@code argsType}'s kind where unset. */
  EnqueueOptions applyTo(Class<?> argsType, EnqueueOptions options) {
    KindConfig k = forEnqueue.get(argsType);
    if (k == KindConfig.none()) {
      return options;
    }
    return options.withKindDefaults(
        k.queue().orElse(null), k.maxAttempts().isPresent() ? k.maxAttempts().getAsInt() : null);
  }
}
