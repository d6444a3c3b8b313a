package dev.baton.spring.boot;

import dev.baton.testing.ArchitectureRules;
import org.junit.jupiter.api.Test;

/**
 * baton-spring-boot-starter, main and test classes, uses baton-core's public API only (in
 * baton-spring-boot-starter-boot4-test, which compiles these tests, its test classes).
 */
class UsesCorePublicApiOnlyTest {

  @Test
  void noClassUsesCoreInternals() {
    ArchitectureRules.usesCorePublicApiOnly().check(ArchitectureRules.thisModule());
  }
}
