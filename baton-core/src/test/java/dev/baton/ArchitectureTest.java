package dev.baton;

import dev.baton.testing.ArchitectureRules;
import org.junit.jupiter.api.Test;

/**
 * baton-core's layering, checked on its compiled main classes: SQL only in {@code internal.db},
 * {@code internal.db} below every other internal package, and no cycle between packages.
 */
class ArchitectureTest {

  @Test
  void onlyInternalDbHoldsSql() {
    ArchitectureRules.sqlOnlyInInternalDb().check(ArchitectureRules.thisModulesMainClasses());
  }

  @Test
  void internalDbDependsOnNoOtherInternalPackage() {
    ArchitectureRules.internalDbDependsOnNoOtherInternalPackage()
        .check(ArchitectureRules.thisModulesMainClasses());
  }

  @Test
  void packagesHaveNoCycles() {
    ArchitectureRules.noCyclesBetweenPackages().check(ArchitectureRules.thisModulesMainClasses());
  }

  @Test
  void filesHaveNoCycles() {
    ArchitectureRules.noCyclesBetweenFiles().check(ArchitectureRules.thisModulesMainClasses());
  }

  @Test
  void onlyTheClientUsesTheNode() {
    ArchitectureRules.onlyTheClientUsesTheNode().check(ArchitectureRules.thisModulesMainClasses());
  }

  @Test
  void heldStateUsesOnlyInternalDb() {
    ArchitectureRules.heldStateUsesOnlyInternalDb()
        .check(ArchitectureRules.thisModulesMainClasses());
  }

  @Test
  void maintenanceUsesNothingWorkerSide() {
    ArchitectureRules.maintenanceUsesNothingWorkerSide()
        .check(ArchitectureRules.thisModulesMainClasses());
  }

  @Test
  void noConstructorTakesMoreThanSixParameters() {
    ArchitectureRules.noLongConstructors().check(ArchitectureRules.thisModulesMainClasses());
  }
}
