package dev.baton.internal.db;

import dev.baton.InvalidConfigException;

/**
 * A validated schema name and the quoted, qualified table names built from it. The only text ever
 * spliced into SQL; every value is a bind parameter.
 */
public final class SchemaName {
  private static final String PLACEHOLDER = "${schema}";

  private final String name;
  private final String quoted;

  private SchemaName(String name) {
    this.name = name;
    this.quoted = "\"" + name + "\"";
  }

  /**
   * Validates {@code name}: 1-55 lower-case letters, digits and underscores, starting with a letter
   * or underscore.
   *
   * @throws InvalidConfigException otherwise
   */
  public static SchemaName of(String name) {
    if (name == null || !name.matches("[a-z_][a-z0-9_]{0,54}")) {
      throw new InvalidConfigException(
          "schema",
          "1-55 characters of lower-case letters, digits and _, starting with a letter or _",
          name);
    }
    return new SchemaName(name);
  }

  /** The plain name. */
  public String name() {
    return name;
  }

  /** The quoted name, safe to splice into SQL. */
  public String quoted() {
    return quoted;
  }

  /**
   * {@code sql} with every {@code ${schema}} replaced by the quoted name: the one way a statement
   * or migration names this schema's tables.
   *
   * @throws IllegalArgumentException if {@code sql} has no {@code ${schema}}: text that names no
   *     table of the schema needs no expansion, and text that lost its placeholder would run
   *     against whatever schema the search path finds
   */
  public String expand(String sql) {
    if (!sql.contains(PLACEHOLDER)) {
      throw new IllegalArgumentException(
          "SQL text names no " + PLACEHOLDER + ": " + sql.strip().lines().findFirst().orElse(""));
    }
    return sql.replace(PLACEHOLDER, quoted);
  }

  /** The NOTIFY channel for inserts into this schema's queues. */
  public String insertChannel() {
    return name + "_insert";
  }

  /** The NOTIFY channel for control messages (cancel) to this schema's nodes. */
  public String controlChannel() {
    return name + "_control";
  }

  @Override
  public String toString() {
    return name;
  }
}
