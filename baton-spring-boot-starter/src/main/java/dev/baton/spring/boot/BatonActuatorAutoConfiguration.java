package dev.baton.spring.boot;

import dev.baton.Baton;
import dev.baton.admin.BatonAdmin;
import dev.baton.metrics.BatonMetrics;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Baton's health indicator and meters, for applications with Actuator and Micrometer. The health
 * indicator ({@code baton}, off with {@code management.health.baton.enabled=false}) is Boot 3's or
 * Boot 4's type, whichever the application has; {@link BatonMetrics} is a {@code MeterBinder},
 * which Boot binds to the application's {@code MeterRegistry}.
 */
// After Boot's availability probes, whose post-processor (of the same, lowest, order) adds the
// readiness group that the one here extends.
@AutoConfiguration(
    after = BatonAutoConfiguration.class,
    afterName = {
      "org.springframework.boot.actuate.autoconfigure.availability.AvailabilityProbesAutoConfiguration",
      "org.springframework.boot.health.autoconfigure.actuate.endpoint.AvailabilityProbesAutoConfiguration"
    })
@ConditionalOnBean(Baton.class)
public class BatonActuatorAutoConfiguration {

  /** Boot 4: health indicators live in {@code spring-boot-health}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
  @ConditionalOnProperty(
      prefix = "management.health.baton",
      name = "enabled",
      matchIfMissing = true)
  static class Boot4Health {
    @Bean
    @ConditionalOnMissingBean(name = "batonHealthIndicator")
    BatonBoot4HealthIndicator batonHealthIndicator(
        Baton baton,
        ObjectProvider<BatonAdmin> admin,
        DataSource dataSource,
        BatonProperties properties) {
      return new BatonBoot4HealthIndicator(health(baton, admin, dataSource, properties));
    }

    /** The indicator joins the readiness group, where the application has one. */
    @Bean
    @ConditionalOnMissingBean
    BatonBoot4ReadinessGroup batonReadinessGroup() {
      return new BatonBoot4ReadinessGroup();
    }
  }

  /** Boot 3: health indicators live in {@code spring-boot-actuator}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.actuate.health.HealthIndicator")
  @ConditionalOnMissingClass("org.springframework.boot.health.contributor.HealthIndicator")
  @ConditionalOnProperty(
      prefix = "management.health.baton",
      name = "enabled",
      matchIfMissing = true)
  static class Boot3Health {
    @Bean
    @ConditionalOnMissingBean(name = "batonHealthIndicator")
    BatonHealthIndicator batonHealthIndicator(
        Baton baton,
        ObjectProvider<BatonAdmin> admin,
        DataSource dataSource,
        BatonProperties properties) {
      return new BatonHealthIndicator(health(baton, admin, dataSource, properties));
    }

    /** The indicator joins the readiness group, where the application has one. */
    @Bean
    @ConditionalOnMissingBean
    BatonReadinessGroup batonReadinessGroup() {
      return new BatonReadinessGroup();
    }
  }

  // An application that defines its own Baton bean without this starter's BatonAdmin still gets
  // the leader read, on the client's schema.
  private static BatonHealth health(
      Baton baton,
      ObjectProvider<BatonAdmin> admin,
      DataSource dataSource,
      BatonProperties properties) {
    return new BatonHealth(
        baton,
        admin.getIfAvailable(() -> new BatonAdmin(dataSource, baton.config())),
        dataSource,
        properties.isEnabled() && !baton.config().queues().isEmpty());
  }

  /** Micrometer: bound by Boot like any {@code MeterBinder}; closed with the context. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
  @ConditionalOnProperty(prefix = "baton.metrics", name = "enabled", matchIfMissing = true)
  static class Metrics {
    @Bean
    @ConditionalOnMissingBean
    BatonMetrics batonMetrics(Baton baton, BatonProperties properties) {
      BatonMetrics.Builder b =
          BatonMetrics.builder(baton)
              .queueStats(properties.getMetrics().isQueueStats())
              .percentileHistograms(properties.getMetrics().isPercentileHistograms());
      if (properties.getMetrics().getRefreshInterval() != null) {
        b.refreshInterval(properties.getMetrics().getRefreshInterval());
      }
      return b.build();
    }
  }
}
