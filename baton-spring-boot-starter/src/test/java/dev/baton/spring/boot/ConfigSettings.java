package dev.baton.spring.boot;

import dev.baton.BatonConfig;
import dev.baton.RetryPolicy;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Every {@link BatonConfig} setting, named as {@link BatonConfig.Builder}'s method, with the {@code
 * baton.*} properties that set it: for each property a value other than Baton's default, how to see
 * that value in a built config, and Baton's default (read from {@link BatonConfig#defaults()}, or
 * none where it is not one constant). The tests of the starter's properties, of its configuration
 * metadata and of docs/configuration.md all check against this list, and {@link
 * EveryConfigSettingHasAPropertyTest} checks the list against the builder.
 */
final class ConfigSettings {
  private ConfigSettings() {}

  /**
   * Builder methods that cannot be a property, each with the reason. Empty today: a setting that
   * takes an object (a clock, a mapper) would go here, and docs/configuration.md would still list
   * it, without a property.
   */
  static final Map<String, String> NOT_PROPERTIES = Map.of();

  /** The builder methods that only end the building. */
  private static final Set<String> NOT_SETTINGS = Set.of("build");

  /**
   * One {@code baton.*} property. {@code name} is as docs/configuration.md writes it ({@code
   * <name>} standing for a key the user chooses); {@code sample} is a value that is not Baton's
   * default; {@code defaultValue} is Baton's default as a property would carry it, or null where
   * the default is not one constant (it follows from another setting, or means "none").
   */
  record Property(
      String name,
      String sample,
      Predicate<BatonConfig> carriesSample,
      Object defaultValue,
      String companion) {

    /** A property that is set alone. */
    Property(
        String name, String sample, Predicate<BatonConfig> carriesSample, Object defaultValue) {
      this(name, sample, carriesSample, defaultValue, null);
    }

    /**
     * The sample's {@code key=value} pairs as an application would set them: the property's, and
     * those it means nothing without ({@code companion}, with {@code <name>} for the key, several
     * joined by {@code &}), if any.
     */
    String[] samplePairs() {
      String own = sampleKey() + "=" + sample;
      return companion == null
          ? new String[] {own}
          : Stream.concat(Stream.of(own), Stream.of(companion.replace("<name>", "mail").split("&")))
              .toArray(String[]::new);
    }

    /** The name with the user's key filled in, as an application would set it. */
    String sampleKey() {
      return name.replace("<name>", "mail");
    }

    /** The name as BatonProperties and the configuration metadata declare it. */
    String declaredName() {
      int key = name.indexOf(".<");
      return key < 0 ? name : name.substring(0, key);
    }

    @Override
    public String toString() {
      return name;
    }
  }

  /** One setting: the builder's method and the properties that set it. */
  record Setting(String builderMethod, List<Property> properties) {}

  static final List<Setting> ALL =
      List.of(
          setting("schema", constant("baton.schema", "jobs_x", BatonConfig::schema, "jobs_x")),
          setting("nodeId", derived("baton.node-id", "node-x", BatonConfig::nodeId, "node-x")),
          setting(
              "queue",
              derived(
                  "baton.queues.<name>.concurrency",
                  "3",
                  c -> c.queues().containsKey("mail") ? c.queues().get("mail").concurrency() : null,
                  3)),
          setting(
              "concurrencyLimit",
              derived(
                  "baton.queues.<name>.concurrency-limit",
                  "5",
                  c -> c.concurrencyLimits().get("mail"),
                  5)),
          setting(
              "concurrencyLimitPerKey",
              paired(
                  "baton.queues.<name>.key-field",
                  "customer",
                  c -> c.concurrencyLimitsPerKey().get("mail"),
                  new BatonConfig.KeyLimit("customer", 2),
                  "baton.queues.<name>.key-limit=2"),
              paired(
                  "baton.queues.<name>.key-limit",
                  "2",
                  c -> c.concurrencyLimitsPerKey().get("mail"),
                  new BatonConfig.KeyLimit("customer", 2),
                  "baton.queues.<name>.key-field=customer")),
          setting(
              "rateLimit",
              paired(
                  "baton.queues.<name>.rate-limit",
                  "50",
                  c -> c.rateLimits().get("mail"),
                  new BatonConfig.RateLimit(50, seconds(1)),
                  "baton.queues.<name>.rate-period=1s"),
              paired(
                  "baton.queues.<name>.rate-period",
                  "1s",
                  c -> c.rateLimits().get("mail"),
                  new BatonConfig.RateLimit(50, seconds(1)),
                  "baton.queues.<name>.rate-limit=50")),
          setting(
              "rateLimitPerKey",
              paired(
                  "baton.queues.<name>.rate-key-field",
                  "customer",
                  c -> c.rateLimits().get("mail"),
                  new BatonConfig.RateLimit(50, seconds(1), "customer"),
                  "baton.queues.<name>.rate-limit=50&baton.queues.<name>.rate-period=1s")),
          setting(
              "kind",
              derived(
                  "baton.kinds.<name>.timeout",
                  "7s",
                  c -> c.kind("mail").timeout().orElse(null),
                  seconds(7)),
              derived(
                  "baton.kinds.<name>.max-attempts",
                  "7",
                  c -> c.kind("mail").maxAttempts(),
                  OptionalInt.of(7)),
              derived(
                  "baton.kinds.<name>.queue",
                  "reports",
                  c -> c.kind("mail").queue().orElse(null),
                  "reports"),
              new Property(
                  "baton.kinds.<name>.retry.base",
                  "7s",
                  c ->
                      c.kind("mail").retryPolicy().isPresent()
                          && jitteredAround(
                              c.kind("mail").retryPolicy().get().nextDelay(1, null), seconds(7)),
                  null),
              new Property(
                  "baton.kinds.<name>.retry.cap",
                  "7h",
                  c ->
                      c.kind("mail").retryPolicy().isPresent()
                          && jitteredAround(
                              c.kind("mail").retryPolicy().get().nextDelay(40, null),
                              Duration.ofHours(7)),
                  null)),
          setting(
              "prefetch", derived("baton.prefetch", "7", BatonConfig::prefetch, OptionalInt.of(7))),
          setting("lease", constant("baton.lease", "7s", BatonConfig::lease, seconds(7))),
          setting(
              "heartbeatInterval",
              derived(
                  "baton.heartbeat-interval", "7s", BatonConfig::heartbeatInterval, seconds(7))),
          setting(
              "jobTimeout",
              constant("baton.job-timeout", "7s", BatonConfig::jobTimeout, seconds(7))),
          setting(
              "pollInterval",
              constant("baton.poll-interval", "7s", BatonConfig::pollInterval, seconds(7))),
          setting("pollOnly", constant("baton.poll-only", "true", BatonConfig::pollOnly, true)),
          setting(
              "claimOnEnqueue",
              constant("baton.claim-on-enqueue", "false", BatonConfig::claimOnEnqueue, false)),
          setting(
              "maintenanceEnabled",
              constant(
                  "baton.maintenance-enabled", "false", BatonConfig::maintenanceEnabled, false)),
          setting(
              "maintenanceInterval",
              constant(
                  "baton.maintenance-interval",
                  "7s",
                  BatonConfig::maintenanceInterval,
                  seconds(7))),
          setting(
              "leaderTtl", derived("baton.leader-ttl", "7s", BatonConfig::leaderTtl, seconds(7))),
          setting("maxRescues", constant("baton.max-rescues", "7", BatonConfig::maxRescues, 7)),
          setting(
              "nodeHeartbeatInterval",
              constant(
                  "baton.node-heartbeat-interval",
                  "7s",
                  BatonConfig::nodeHeartbeatInterval,
                  seconds(7))),
          setting("nodeTtl", constant("baton.node-ttl", "70s", BatonConfig::nodeTtl, seconds(70))),
          setting(
              "cleanInterval",
              constant("baton.clean-interval", "7s", BatonConfig::cleanInterval, seconds(7))),
          setting(
              "cleanBatchSize",
              constant("baton.clean-batch-size", "7", BatonConfig::cleanBatchSize, 7)),
          setting(
              "completedRetention",
              constant(
                  "baton.completed-retention", "7s", BatonConfig::completedRetention, seconds(7))),
          setting(
              "cancelledRetention",
              constant(
                  "baton.cancelled-retention", "7s", BatonConfig::cancelledRetention, seconds(7))),
          setting(
              "discardedRetention",
              constant(
                  "baton.discarded-retention", "7s", BatonConfig::discardedRetention, seconds(7))),
          setting(
              "archiveFinished",
              constant("baton.archive-finished", "true", BatonConfig::archiveFinished, true)),
          setting(
              "stopTimeout",
              constant("baton.stop-timeout", "7s", BatonConfig::stopTimeout, seconds(7))),
          setting(
              "maxArgsBytes", constant("baton.max-args-bytes", "7", BatonConfig::maxArgsBytes, 7)),
          setting(
              "maxMetadataBytes",
              constant("baton.max-metadata-bytes", "7", BatonConfig::maxMetadataBytes, 7)),
          setting(
              "allowUnknownKinds",
              constant("baton.allow-unknown-kinds", "true", BatonConfig::allowUnknownKinds, true)),
          setting(
              "knownKinds",
              derived(
                  "baton.known-kinds",
                  "send_email",
                  BatonConfig::knownKinds,
                  Set.of("send_email"))),
          setting(
              "retryPolicy",
              new Property(
                  "baton.retry.base",
                  "7s",
                  c -> jitteredAround(c.retryPolicy().nextDelay(1, null), seconds(7)),
                  RetryPolicy.DEFAULT_BASE),
              new Property(
                  "baton.retry.cap",
                  "7h",
                  c -> jitteredAround(c.retryPolicy().nextDelay(40, null), Duration.ofHours(7)),
                  RetryPolicy.DEFAULT_CAP)),
          setting(
              "completerBatchSize",
              constant("baton.completer-batch-size", "7", BatonConfig::completerBatchSize, 7)),
          setting(
              "completerCapacity",
              constant("baton.completer-capacity", "7", BatonConfig::completerCapacity, 7)),
          setting(
              "completerFlushDelay",
              constant(
                  "baton.completer-flush-delay",
                  "7ms",
                  BatonConfig::completerFlushDelay,
                  Duration.ofMillis(7))),
          setting(
              "virtualThreads",
              derived("baton.virtual-threads", "false", BatonConfig::virtualThreads, false)));

  /** The setting of each builder method. */
  static Setting setting(String builderMethod) {
    return ALL.stream()
        .filter(s -> s.builderMethod().equals(builderMethod))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no setting " + builderMethod));
  }

  /** Every property of every setting. */
  static Stream<Property> properties() {
    return ALL.stream().flatMap(s -> s.properties().stream());
  }

  /** The public methods of {@link BatonConfig.Builder} that set something, by name. */
  static Set<String> builderMethods() {
    return Arrays.stream(BatonConfig.Builder.class.getDeclaredMethods())
        .filter(m -> Modifier.isPublic(m.getModifiers()) && !Modifier.isStatic(m.getModifiers()))
        .map(Method::getName)
        .filter(name -> !NOT_SETTINGS.contains(name))
        .collect(Collectors.toCollection(TreeSet::new));
  }

  private static Setting setting(String builderMethod, Property... properties) {
    return new Setting(builderMethod, List.of(properties));
  }

  /** A property whose default is one constant, read from {@link BatonConfig#defaults()}. */
  private static Property constant(
      String name, String sample, Function<BatonConfig, ?> read, Object sampleValue) {
    return new Property(
        name,
        sample,
        c -> Objects.equals(read.apply(c), sampleValue),
        read.apply(BatonConfig.defaults()));
  }

  /** A property whose default is not one constant. */
  private static Property derived(
      String name, String sample, Function<BatonConfig, ?> read, Object sampleValue) {
    return new Property(name, sample, c -> Objects.equals(read.apply(c), sampleValue), null);
  }

  /** A property whose default is none, set together with {@code companion} ({@code key=value}). */
  private static Property paired(
      String name,
      String sample,
      Function<BatonConfig, ?> read,
      Object sampleValue,
      String companion) {
    return new Property(
        name, sample, c -> Objects.equals(read.apply(c), sampleValue), null, companion);
  }

  private static Duration seconds(long s) {
    return Duration.ofSeconds(s);
  }

  // The exponential policy jitters by +-20%.
  private static boolean jitteredAround(Duration delay, Duration expected) {
    return delay.compareTo(expected.multipliedBy(8).dividedBy(10)) >= 0
        && delay.compareTo(expected.multipliedBy(12).dividedBy(10)) <= 0;
  }
}
