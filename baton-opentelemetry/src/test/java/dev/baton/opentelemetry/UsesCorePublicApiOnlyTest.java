package dev.baton.opentelemetry;

import dev.baton.testing.ArchitectureRules;
import org.junit.jupiter.api.Test;

/** baton-opentelemetry, main and test classes, uses baton-core's public API only. */
class UsesCorePublicApiOnlyTest {

  @Test
  void noClassUsesCoreInternals() {
    ArchitectureRules.usesCorePublicApiOnly().check(ArchitectureRules.thisModule());
  }
}
