package dev.baton.cli;

import dev.baton.testing.ArchitectureRules;
import org.junit.jupiter.api.Test;

/** baton-cli, main and test classes, uses baton-core's public API only. */
class UsesCorePublicApiOnlyTest {

  @Test
  void noClassUsesCoreInternals() {
    ArchitectureRules.usesCorePublicApiOnly().check(ArchitectureRules.thisModule());
  }

  @Test
  void noClassReadsCoreInternalsByReflection() {
    ArchitectureRules.readsNoCoreInternalsByReflection().check(ArchitectureRules.thisModule());
  }
}
