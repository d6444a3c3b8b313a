package dev.baton.spring.boot;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/** The {@code baton} health indicator on Spring Boot 4 (see {@link BatonHealth}). */
public class BatonBoot4HealthIndicator extends AbstractHealthIndicator {
  private final BatonHealth health;

  BatonBoot4HealthIndicator(BatonHealth health) {
    super("Baton health check failed");
    this.health = health;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    BatonHealth.Report r = health.check();
    switch (r.status()) {
      case UP -> builder.up();
      case OUT_OF_SERVICE -> builder.outOfService();
      default -> builder.down();
    }
    builder.withDetails(r.details());
  }
}
