package dev.baton.migrate;

import dev.baton.BatonException;
import dev.baton.SchemaNotMigratedException;
import dev.baton.SchemaTooNewException;
import dev.baton.internal.db.Db;
import dev.baton.internal.db.MigrationStore;
import dev.baton.internal.db.SchemaName;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Creates and upgrades Baton's tables from numbered SQL scripts shipped in the jar.
 *
 * <p>Each call runs in one transaction holding an advisory lock on the schema, so migrators started
 * by several nodes at once apply each version exactly once; a failed script leaves nothing behind.
 * Applied versions are recorded in {@code <schema>.migration}. Only the migrator needs DDL rights;
 * a running client needs DML on the tables, USAGE on the sequence and LISTEN (see
 * docs/operations/least-privilege.md).
 *
 * <p>Teams using Flyway or Liquibase take the SQL from {@link #print()} instead.
 */
public final class Migrator {

  /** The latest version of the queue tables this library needs. */
  public static final int QUEUE_VERSION = 13;

  private record Migration(int version, String name) {}

  private static final List<Migration> QUEUE =
      List.of(
          new Migration(1, "job"),
          new Migration(2, "cluster"),
          new Migration(3, "stats"),
          new Migration(4, "completions"),
          new Migration(5, "rescue"),
          new Migration(6, "node_lock"),
          new Migration(7, "unique"),
          new Migration(8, "backlog_cap"),
          new Migration(9, "limits"),
          new Migration(10, "workflows"),
          new Migration(11, "limits_fold"),
          new Migration(12, "history"),
          new Migration(13, "key_index"));
  private static final List<Migration> INBOX = List.of(new Migration(1, "inbox"));

  private final DataSource dataSource;
  private final SchemaName schema;
  private final MigrationStore store;
  private final String line;
  private final String resourceDir;
  private final List<Migration> migrations;

  /**
   * A migrator of the job queue's tables in {@code schema}.
   *
   * @throws dev.baton.InvalidConfigException if the schema name is not valid
   */
  public Migrator(DataSource dataSource, String schema) {
    this(dataSource, schema, "queue", "/dev/baton/migrate/", QUEUE);
  }

  private Migrator(
      DataSource dataSource,
      String schema,
      String line,
      String resourceDir,
      List<Migration> migrations) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.schema = SchemaName.of(schema);
    this.store = new MigrationStore(this.schema);
    this.line = line;
    this.resourceDir = resourceDir;
    this.migrations = migrations;
  }

  /**
   * A migrator of the receiver-side inbox table ({@link dev.baton.inbox.Inbox}) in {@code schema}.
   */
  public static Migrator forInbox(DataSource dataSource, String schema) {
    return new Migrator(dataSource, schema, "inbox", "/dev/baton/inbox/", INBOX);
  }

  /** The latest version this library ships. */
  public int latestVersion() {
    return migrations.get(migrations.size() - 1).version();
  }

  /** The latest applied version; 0 when none. */
  public int currentVersion() {
    return Db.inTransaction(
        dataSource,
        "cannot read migration version (schema=" + schema + ")",
        c -> {
          if (!store.tableExists(c)) {
            return 0;
          }
          List<Integer> applied = store.applied(c, line);
          return applied.isEmpty() ? 0 : applied.get(applied.size() - 1);
        });
  }

  /**
   * Checks that the schema is at exactly the latest version this library ships, as a client needs
   * it before it starts (and the {@code baton} command before it reads or writes jobs).
   *
   * @throws SchemaNotMigratedException if it has no applied version or an older one
   * @throws SchemaTooNewException if it is at a version newer than this library knows
   */
  public void requireLatest() {
    int version = currentVersion();
    if (version > latestVersion()) {
      throw new SchemaTooNewException(schema.name(), version, latestVersion());
    }
    if (version == 0) {
      throw new SchemaNotMigratedException(
          schema.name(),
          "the table " + schema.name() + ".migration is missing or records no version");
    }
    if (version < latestVersion()) {
      throw new SchemaNotMigratedException(
          schema.name(), "it is at version " + version + ", this library needs " + latestVersion());
    }
  }

  /** Applies every pending version. Returns the versions applied by this call, ascending. */
  public List<Integer> up() {
    return up(latestVersion());
  }

  /**
   * Applies pending versions up to {@code target}. Returns the versions applied, ascending.
   *
   * @throws SchemaTooNewException if the schema is at a version newer than this library knows
   */
  public List<Integer> up(int target) {
    requireKnown(target);
    return inLockedTransaction(
        "cannot migrate up (schema=" + schema + ", line=" + line + ")",
        c -> {
          store.bootstrap(c);
          List<Integer> applied = requireKnown(store.applied(c, line));
          List<Integer> done = new ArrayList<>();
          for (Migration m : migrations) {
            if (m.version() <= target && !applied.contains(m.version())) {
              store.execute(c, schema.expand(read(m, false)));
              store.record(c, line, m.version(), m.name());
              done.add(m.version());
            }
          }
          return done;
        });
  }

  /**
   * Reverts the latest applied version. Returns the versions reverted (none if none applied).
   *
   * @throws SchemaTooNewException if the schema is at a version newer than this library knows
   */
  public List<Integer> down() {
    int current = currentVersion();
    return current == 0 ? List.of() : down(current - 1);
  }

  /**
   * Reverts applied versions above {@code target}, newest first; {@code down(0)} drops every table
   * of this line with all its jobs. Returns the versions reverted.
   *
   * @throws SchemaTooNewException if the schema is at a version newer than this library knows
   */
  public List<Integer> down(int target) {
    if (target < 0 || target > latestVersion()) {
      throw new IllegalArgumentException(
          "cannot migrate down: target must be 0.." + latestVersion() + ", got " + target);
    }
    return inLockedTransaction(
        "cannot migrate down (schema=" + schema + ", line=" + line + ")",
        c -> {
          if (!store.tableExists(c)) {
            return List.of();
          }
          List<Integer> applied = requireKnown(store.applied(c, line));
          List<Integer> done = new ArrayList<>();
          for (int i = migrations.size() - 1; i >= 0; i--) {
            Migration m = migrations.get(i);
            if (m.version() > target && applied.contains(m.version())) {
              store.execute(c, schema.expand(read(m, true)));
              store.unrecord(c, line, m.version());
              done.add(m.version());
            }
          }
          return done;
        });
  }

  /**
   * The SQL of every version, as one script: creating the schema and bookkeeping table, each
   * migration, and the rows that record it, so a client finds the schema ready. For teams that
   * apply migrations with their own tool.
   */
  public String print() {
    StringBuilder sb = new StringBuilder();
    sb.append("-- Baton ")
        .append(line)
        .append(" migrations for schema ")
        .append(schema)
        .append('\n');
    sb.append(store.bootstrapSql()).append('\n');
    for (Migration m : migrations) {
      sb.append("-- version ").append(m.version()).append(": ").append(m.name()).append('\n');
      sb.append(schema.expand(read(m, false)).strip()).append('\n');
      sb.append(store.recordSql(line, m.version(), m.name())).append('\n');
    }
    return sb.toString();
  }

  /** {@code applied} (ascending), unless its latest is newer than this library knows. */
  private List<Integer> requireKnown(List<Integer> applied) {
    if (!applied.isEmpty() && applied.get(applied.size() - 1) > latestVersion()) {
      throw new SchemaTooNewException(
          schema.name(), applied.get(applied.size() - 1), latestVersion());
    }
    return applied;
  }

  private void requireKnown(int target) {
    if (target < 1 || target > latestVersion()) {
      throw new IllegalArgumentException(
          "cannot migrate up: target must be 1.." + latestVersion() + ", got " + target);
    }
  }

  private <T> T inLockedTransaction(String what, Db.ConnectionWork<T> work) {
    return Db.inTransaction(
        dataSource,
        what,
        c -> {
          boolean autoCommit = c.getAutoCommit();
          c.setAutoCommit(false);
          try {
            store.lock(c);
            T result = work.run(c);
            c.commit();
            return result;
          } catch (Exception e) {
            c.rollback();
            throw e;
          } finally {
            c.setAutoCommit(autoCommit);
          }
        });
  }

  private String read(Migration m, boolean down) {
    String file =
        resourceDir + String.format("V%03d__%s%s.sql", m.version(), m.name(), down ? ".down" : "");
    try (InputStream in = Migrator.class.getResourceAsStream(file)) {
      if (in == null) {
        throw new BatonException("migration script missing from the jar: " + file);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new BatonException("cannot read migration script " + file, e);
    }
  }
}
