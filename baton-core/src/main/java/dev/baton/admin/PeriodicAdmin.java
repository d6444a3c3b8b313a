package dev.baton.admin;

import dev.baton.InvalidConfigException;
import dev.baton.PeriodicJob;
import dev.baton.internal.db.BrowseStore;
import dev.baton.internal.db.Db;
import dev.baton.internal.db.SchemaName;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The periodic (cron) schedules of a cluster as its leader records them in {@code
 * <schema>.periodic}: each schedule's last handled due time, the job its last run enqueued, and the
 * next due time. A schedule appears once a leader has seen it registered. Thread-safe; does no I/O
 * until used.
 */
public final class PeriodicAdmin {

  /**
   * One periodic schedule.
   *
   * @param name the periodic job's name
   * @param schedule its cron expression, as last registered
   * @param zone the zone {@code nextDueAt} was computed in
   * @param lastDueAt the last due time the leader handled (enqueued, or skipped as missed); the
   *     registration time for a schedule that has not fired yet
   * @param lastJobId the job its last run enqueued, or null if none did yet
   * @param updatedAt when the leader last wrote the row
   * @param nextDueAt the first due time after {@code lastDueAt}, or null when the expression has
   *     none (or cannot be read by this version)
   */
  public record PeriodicInfo(
      String name,
      String schedule,
      ZoneId zone,
      Instant lastDueAt,
      Long lastJobId,
      Instant updatedAt,
      Instant nextDueAt) {}

  private final DataSource dataSource;
  private final SchemaName schema;
  private final BrowseStore store;

  /**
   * The schedules of {@code schema}.
   *
   * @throws InvalidConfigException if the schema name is not valid
   */
  public PeriodicAdmin(DataSource dataSource, String schema) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.schema = SchemaName.of(schema);
    this.store = new BrowseStore(this.schema);
  }

  /**
   * Every schedule, by name, its next due time computed in UTC. The table does not record a
   * schedule's zone; use {@link #list(Map)} for schedules registered with another one.
   */
  public List<PeriodicInfo> list() {
    return list(Map.of());
  }

  /**
   * Every schedule, by name, its next due time computed in the zone {@code zones} gives for its
   * name ({@link PeriodicJob#zone()}), else in UTC.
   */
  public List<PeriodicInfo> list(Map<String, ZoneId> zones) {
    Objects.requireNonNull(zones, "zones");
    List<BrowseStore.PeriodicRow> rows =
        Db.inTransaction(
            dataSource, "cannot read periodic schedules (schema=" + schema + ")", store::periodic);
    List<PeriodicInfo> out = new ArrayList<>(rows.size());
    for (BrowseStore.PeriodicRow r : rows) {
      ZoneId zone = zones.getOrDefault(r.name(), ZoneOffset.UTC);
      Instant next;
      try {
        next = PeriodicJob.nextDue(r.schedule(), zone, r.lastDueAt()).orElse(null);
      } catch (InvalidConfigException e) {
        next = null;
      }
      out.add(
          new PeriodicInfo(
              r.name(), r.schedule(), zone, r.lastDueAt(), r.lastJobId(), r.updatedAt(), next));
    }
    return out;
  }
}
