package dev.baton.dashboard;

import dev.baton.testing.ArchitectureRules;
import org.junit.jupiter.api.Test;

/** baton-dashboard, main and test classes, uses baton-core's public API only. */
class UsesCorePublicApiOnlyTest {

  @Test
  void noClassUsesCoreInternals() {
    ArchitectureRules.usesCorePublicApiOnly().check(ArchitectureRules.thisModule());
  }
}
