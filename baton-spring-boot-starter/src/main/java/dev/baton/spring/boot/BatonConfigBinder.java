package dev.baton.spring.boot;

import dev.baton.BatonConfig;
import dev.baton.EnqueueOptions;
import dev.baton.InvalidConfigException;
import dev.baton.JobArgs;
import dev.baton.KindConfig;
import dev.baton.QueueConfig;
import dev.baton.RetryPolicy;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;

/**
 * Turns {@link BatonProperties} into a {@link BatonConfig}. Each value is handed to Baton's
 * builder, which checks it; a rejection is restated under the Spring property's name with the value
 * as the configuration wrote it, so the failure analysis can say which line to fix.
 */
final class BatonConfigBinder {
  static final String SHUTDOWN_PHASE_TIMEOUT = "spring.lifecycle.timeout-per-shutdown-phase";

  /** Spring's default for {@link #SHUTDOWN_PHASE_TIMEOUT}. */
  static final Duration DEFAULT_SHUTDOWN_PHASE = Duration.ofSeconds(30);

  private final BatonProperties properties;
  private final Environment environment;

  BatonConfigBinder(BatonProperties properties, Environment environment) {
    this.properties = properties;
    this.environment = environment;
  }

  /** The config; works the default queue when no queue is set and {@code hasHandlers}. */
  BatonConfig config(boolean hasHandlers) {
    BatonProperties p = properties;
    BatonConfig.Builder b = BatonConfig.builder();
    set("schema", p.getSchema(), b::schema);
    set("node-id", p.getNodeId(), b::nodeId);
    Map<String, BatonProperties.Queue> queues = p.getQueues();
    if (queues.isEmpty() && hasHandlers) {
      b.queue(EnqueueOptions.DEFAULT_QUEUE, QueueConfig.DEFAULT_CONCURRENCY);
    }
    queues.forEach(
        (name, q) -> {
          try {
            b.queue(name, q.getConcurrency());
          } catch (InvalidConfigException e) {
            // the name is the key under baton.queues; the concurrency has a property of its own
            boolean badName = !QueueConfig.isValidName(name);
            throw badName
                ? new InvalidBatonPropertyException("baton.queues", e.expected(), name, e)
                : rejected("queues." + name + ".concurrency", e);
          }
          if (q.getConcurrencyLimit() != null) {
            try {
              b.concurrencyLimit(name, q.getConcurrencyLimit());
            } catch (InvalidConfigException e) {
              throw rejected("queues." + name + ".concurrency-limit", e);
            }
          }
          String prefix = "queues." + name + ".";
          if (q.getKeyField() != null || q.getKeyLimit() != null) {
            if (q.getKeyField() == null) {
              throw missing(prefix, "key-field", "a top-level field of the args", "key-limit");
            }
            if (q.getKeyLimit() == null) {
              throw missing(prefix, "key-limit", "1..1000000", "key-field");
            }
            try {
              b.concurrencyLimitPerKey(name, q.getKeyField(), q.getKeyLimit());
            } catch (InvalidConfigException e) {
              boolean badField = e.property().contains("field");
              throw rejected(prefix + (badField ? "key-field" : "key-limit"), e);
            }
          }
          String rateKeyField = q.getRateKeyField();
          if (q.getRateLimit() != null || q.getRatePeriod() != null || rateKeyField != null) {
            String present = q.getRatePeriod() != null ? "rate-period" : "rate-key-field";
            if (q.getRateLimit() == null) {
              throw missing(prefix, "rate-limit", "1..1000000", present);
            }
            if (q.getRatePeriod() == null) {
              throw missing(prefix, "rate-period", "1ms..1d, e.g. 1s", "rate-limit");
            }
            if (rateKeyField != null
                && q.getKeyField() != null
                && !rateKeyField.equals(q.getKeyField())) {
              // the database holds one key field for both limits per key of a queue
              throw new InvalidBatonPropertyException(
                  "baton." + prefix + "rate-key-field",
                  "the same as baton."
                      + prefix
                      + "key-field (\""
                      + q.getKeyField()
                      + "\"), as a queue limited per key in concurrency and in rate has one key"
                      + " field",
                  rateKeyField,
                  "Set baton."
                      + prefix
                      + "rate-key-field and baton."
                      + prefix
                      + "key-field to one field, or remove one of them.",
                  null);
            }
            try {
              if (rateKeyField != null) {
                b.rateLimitPerKey(name, rateKeyField, q.getRateLimit(), q.getRatePeriod());
              } else {
                b.rateLimit(name, q.getRateLimit(), q.getRatePeriod());
              }
            } catch (InvalidConfigException e) {
              String bad =
                  e.property().contains("field")
                      ? "rate-key-field"
                      : e.property().contains("period") ? "rate-period" : "rate-limit";
              throw rejected(prefix + bad, e);
            }
          }
        });
    p.getKinds().forEach((kind, k) -> b.kind(kind, kindConfig(kind, k)));
    set("lease", p.getLease(), b::lease);
    set("heartbeat-interval", p.getHeartbeatInterval(), b::heartbeatInterval);
    set("job-timeout", p.getJobTimeout(), b::jobTimeout);
    set("poll-interval", p.getPollInterval(), b::pollInterval);
    set("poll-only", p.getPollOnly(), b::pollOnly);
    set("claim-on-enqueue", p.getClaimOnEnqueue(), b::claimOnEnqueue);
    set("maintenance-interval", p.getMaintenanceInterval(), b::maintenanceInterval);
    set("maintenance-enabled", p.getMaintenanceEnabled(), b::maintenanceEnabled);
    set("leader-ttl", p.getLeaderTtl(), b::leaderTtl);
    set("max-rescues", p.getMaxRescues(), b::maxRescues);
    set("node-heartbeat-interval", p.getNodeHeartbeatInterval(), b::nodeHeartbeatInterval);
    set("node-ttl", p.getNodeTtl(), b::nodeTtl);
    set("clean-interval", p.getCleanInterval(), b::cleanInterval);
    set("clean-batch-size", p.getCleanBatchSize(), b::cleanBatchSize);
    set("completed-retention", p.getCompletedRetention(), b::completedRetention);
    set("cancelled-retention", p.getCancelledRetention(), b::cancelledRetention);
    set("discarded-retention", p.getDiscardedRetention(), b::discardedRetention);
    set("archive-finished", p.getArchiveFinished(), b::archiveFinished);
    set("stop-timeout", stopTimeout(p.getStopTimeout()), b::stopTimeout);
    set("max-args-bytes", p.getMaxArgsBytes(), b::maxArgsBytes);
    set("max-metadata-bytes", p.getMaxMetadataBytes(), b::maxMetadataBytes);
    set("allow-unknown-kinds", p.getAllowUnknownKinds(), b::allowUnknownKinds);
    for (int i = 0; i < p.getKnownKinds().size(); i++) {
      set("known-kinds[" + i + "]", p.getKnownKinds().get(i), k -> b.knownKinds(k));
    }
    set("completer-batch-size", p.getCompleterBatchSize(), b::completerBatchSize);
    set("completer-capacity", p.getCompleterCapacity(), b::completerCapacity);
    set("completer-flush-delay", p.getCompleterFlushDelay(), b::completerFlushDelay);
    set("virtual-threads", p.getVirtualThreads(), b::virtualThreads);
    set("prefetch", p.getPrefetch(), b::prefetch);
    RetryPolicy retry = retryPolicy(p.getRetry());
    if (retry != null) {
      b.retryPolicy(retry);
    }
    try {
      return b.build();
    } catch (InvalidConfigException e) {
      // build() checks combinations; its property is a builder name such as heartbeatInterval
      throw rejected(kebab(e.property()), e);
    }
  }

  private KindConfig kindConfig(String kind, BatonProperties.Kind k) {
    if (!JobArgs.isValidKind(kind)) {
      throw new InvalidBatonPropertyException(
          "baton.kinds", "keys of 1-128 letters, digits and _ . : - /", kind, null);
    }
    String prefix = "kinds." + kind + ".";
    KindConfig.Builder b = KindConfig.builder();
    set(prefix + "timeout", k.getTimeout(), b::timeout);
    set(prefix + "max-attempts", k.getMaxAttempts(), b::maxAttempts);
    set(prefix + "queue", k.getQueue(), b::queue);
    RetryPolicy retry = retryPolicy(prefix + "retry", k.getRetry());
    if (retry != null) {
      b.retryPolicy(retry);
    }
    return b.build();
  }

  /**
   * The stop timeout within Spring's shutdown phase: the context waits at most {@code
   * spring.lifecycle.timeout-per-shutdown-phase} (default 30s) for a phase, so the handlers' grace
   * must end before it, leaving time to interrupt them and hand their jobs back. Unset, it is the
   * smaller of Baton's default and half the phase timeout; set, it must be less than the phase
   * timeout.
   */
  private Duration stopTimeout(Duration set) {
    // Boot's binder reads "20s" as Spring's own property binding does.
    Duration phase =
        environment instanceof ConfigurableEnvironment env
            ? Binder.get(env)
                .bind(SHUTDOWN_PHASE_TIMEOUT, Duration.class)
                .orElse(DEFAULT_SHUTDOWN_PHASE)
            : DEFAULT_SHUTDOWN_PHASE;
    if (set == null) {
      Duration half = phase.dividedBy(2);
      return half.compareTo(BatonConfig.DEFAULT_STOP_TIMEOUT) < 0
          ? half
          : BatonConfig.DEFAULT_STOP_TIMEOUT;
    }
    if (set.compareTo(phase) >= 0) {
      throw new InvalidBatonPropertyException(
          "baton.stop-timeout",
          "less than " + SHUTDOWN_PHASE_TIMEOUT + " (" + phase + ")",
          given("stop-timeout", set),
          "Set baton.stop-timeout below "
              + SHUTDOWN_PHASE_TIMEOUT
              + " ("
              + phase
              + "), or raise that: Spring waits no longer for the whole stop.",
          null);
    }
    return set;
  }

  private RetryPolicy retryPolicy(BatonProperties.Retry r) {
    return retryPolicy("retry", r);
  }

  private RetryPolicy retryPolicy(String prefix, BatonProperties.Retry r) {
    if (r.getBase() == null && r.getCap() == null) {
      return null;
    }
    Duration base = r.getBase() != null ? r.getBase() : RetryPolicy.DEFAULT_BASE;
    Duration cap = r.getCap() != null ? r.getCap() : RetryPolicy.DEFAULT_CAP;
    if (base.isNegative() || base.isZero()) {
      throw new InvalidBatonPropertyException(
          "baton." + prefix + ".base", "more than 0", given(prefix + ".base", base), null);
    }
    if (cap.compareTo(base) < 0) {
      throw new InvalidBatonPropertyException(
          "baton." + prefix + ".cap",
          "at least baton." + prefix + ".base (" + base + ")",
          given(prefix + ".cap", cap),
          null);
    }
    return RetryPolicy.exponential(base, cap);
  }

  private <T> void set(String property, T value, Consumer<T> setter) {
    if (value == null) {
      return;
    }
    try {
      setter.accept(value);
    } catch (InvalidConfigException e) {
      throw rejected(property, e);
    }
  }

  /**
   * Property {@code prefix + missing} is unset while {@code prefix + present}, which means nothing
   * without it, is set.
   */
  private InvalidBatonPropertyException missing(
      String prefix, String missing, String expected, String present) {
    return new InvalidBatonPropertyException(
        "baton." + prefix + missing,
        expected + ", as baton." + prefix + present + " is set",
        null,
        "Set baton." + prefix + missing + " as well, or remove baton." + prefix + present + ".",
        null);
  }

  private InvalidBatonPropertyException rejected(String property, InvalidConfigException e) {
    return new InvalidBatonPropertyException(
        "baton." + property, e.expected(), given(property, e.received()), e);
  }

  /** The value as the configuration wrote it, e.g. "100ms" rather than PT0.1S. */
  private Object given(String property, Object parsed) {
    String raw = environment.getProperty("baton." + property);
    return raw != null ? raw : parsed;
  }

  /** {@code heartbeatInterval} becomes {@code heartbeat-interval}; other names stay as they are. */
  static String kebab(String builderProperty) {
    if (builderProperty == null || !builderProperty.matches("[a-z][A-Za-z]*")) {
      return String.valueOf(builderProperty);
    }
    return builderProperty.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
  }
}
