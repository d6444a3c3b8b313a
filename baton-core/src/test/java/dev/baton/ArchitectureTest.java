package dev.baton;

import dev.baton.testing.ArchitectureRules;
import org.junit.jupiter.api.Test;

/**
 * baton-core's layering, checked on its compiled main classes: SQL only in {@code internal.db},
 * {@code internal.db} below every other internal package, no cycle between packages or between
 * files, the node runtime used by the client only, the held-job state and leader-side maintenance
 * apart from the worker-side services, and no long positional constructor.
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
  void nodeDoesNotUseTheClient() {
    ArchitectureRules.nodeDoesNotUseTheClient().check(ArchitectureRules.thisModulesMainClasses());
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
    ArchitectureRules.noLongConstructors(
            // Public records of data (a component per field a reader sees): their signatures are
            // public API.
            "dev.baton.Counters",
            "dev.baton.Job",
            "dev.baton.NodeInfo",
            "dev.baton.admin.JobBrowser$Filter",
            "dev.baton.admin.PeriodicAdmin$PeriodicInfo",
            "dev.baton.admin.StatsAdmin$LimitsInUse",
            "dev.baton.admin.StatsAdmin$QueueStats",
            // Rows of internal.db: a component per column a statement reads or binds.
            "dev.baton.internal.db.BrowseStore$FailureRow",
            "dev.baton.internal.db.BrowseStore$Filter",
            "dev.baton.internal.db.ClaimedJob",
            "dev.baton.internal.db.ClusterStore$NodeRow",
            "dev.baton.internal.db.EnqueueStore$NewJob",
            "dev.baton.internal.db.Finish",
            "dev.baton.internal.db.HolderStore$ClaimParams",
            "dev.baton.internal.db.HolderStore$FinishColumns",
            "dev.baton.internal.db.JobRow",
            "dev.baton.internal.db.StatsStore$QueueLimit",
            "dev.baton.internal.db.StatsStore$QueueStats",
            "dev.baton.internal.db.StatsStore$QueueStatsWithDiscarded")
        .check(ArchitectureRules.thisModulesMainClasses());
  }
}
