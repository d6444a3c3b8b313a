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
 * reason; details schema, version, node id and leader (read through the operator API).
 */
final class BatonHealth {

  /** One reading: up or down, and the details to show. */
  record Report(boolean up, Map<String, Object> details) {}

  private final Baton baton;
  private final BatonAdmin admin;
  private final Migrator migrator;

  BatonHealth(Baton baton, BatonAdmin admin, DataSource dataSource) {
    this.baton = baton;
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
      return new Report(false, details);
    }
    Optional<LeaderInfo> leader = admin.leader();
    details.put("leader", leader.map(LeaderInfo::nodeId).orElse("none"));
    details.put("leading", baton.isLeader());
    return new Report(true, details);
  }
}
