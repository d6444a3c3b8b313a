package dev.baton.examples.springboot;

import dev.baton.testing.ArchitectureRules;
import org.junit.jupiter.api.Test;

/** The Spring Boot example, main and test classes, uses baton-core's public API only. */
class UsesCorePublicApiOnlyTest {

  @Test
  void noClassUsesCoreInternals() {
    ArchitectureRules.usesCorePublicApiOnly().check(ArchitectureRules.thisModule());
  }
}
