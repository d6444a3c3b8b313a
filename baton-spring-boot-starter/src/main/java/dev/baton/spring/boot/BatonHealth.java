package dev.baton.spring.boot;

import dev.baton.Baton;
import dev.baton.LeaderInfo;
import dev.baton.admin.BatonAdmin;
import dev.baton.migrate.Migrator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * What the {@code baton} health indicator reports, apart from Boot's health types (which Boot 4
 * moved to another package): DOWN when the schema is missing or older than this library, with the
 * reason; OUT_OF_SERVICE when this node's workers should run ({@code baton.enabled} and queues to
 * work) but are stopped (before the context started them, while it stops them, or after); details
 * schema, version, node id, leader (read through the operator API) and whether the workers run.
 */
final class BatonHealth {

  /** What a reading says. */
  enum Status {
    UP,
    DOWN,
    /** The schema is fine, but this node's workers are stopped while they should run. */
    OUT_OF_SERVICE
  }

  /** One reading: its status and the details to show. */
  record Report(Status status, Map<String, Object> details) {}

  private final Baton baton;
  private final BatonAdmin admin;
  private final Migrator migrator;
  private final boolean workersExpected;

  /**
   * A health check of {@code baton}; {@code workersExpected} when this application starts the
   * client's workers ({@code baton.enabled}) and the client has queues to work.
   */
  BatonHealth(Baton baton, BatonAdmin admin, DataSource dataSource, boolean workersExpected) {
    this.baton = baton;
    this.workersExpected = workersExpected;
    this.admin = admin;
    this.migrator = new Migrator(dataSource, baton.config().schema());
  }

  /** Reads the schema version and the leader; a database error propagates (Boot reports DOWN). */
  Report check() {
    Map<String, Object> details = new LinkedHashMap<>();
    String schema = baton.config().schema();
    int current = migrator.currentVersion();
    int needed = migrator.latestVersion();
    details.put("schema", schema);
    details.put("schemaVersion", current);
    details.put("requiredSchemaVersion", needed);
    details.put("nodeId", baton.nodeId());
    if (current < needed) {
      details.put(
          "reason",
          (current == 0
                  ? "schema \"" + schema + "\" has no Baton tables"
                  : "schema \"" + schema + "\" is at version " + current + ", older than " + needed)
              + "; set baton.migrate=true or apply the SQL of Migrator.print()");
      return new Report(Status.DOWN, details);
    }
    Optional<LeaderInfo> leader = admin.leader();
    details.put("leader", leader.map(LeaderInfo::nodeId).orElse("none"));
    details.put("leading", baton.isLeader());
    boolean running = baton.isRunning();
    details.put("workersRunning", running);
    if (workersExpected && !running) {
      details.put(
          "reason",
          "this node's workers are stopped (node="
              + baton.nodeId()
              + "): it claims no jobs of its queues "
              + baton.config().queues().keySet());
      return new Report(Status.OUT_OF_SERVICE, details);
    }
    return new Report(Status.UP, details);
  }
}
