package dev.baton.internal.db;

import dev.baton.InvalidConfigException;

/**
 * A validated schema name and the quoted, qualified table names built from it. The only text ever
 * spliced into SQL; every value is a bind parameter.
 */
public final class SchemaName {
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

  /** Replaces {@code ${schema}} in {@code sql} with the quoted name. */
  public String expand(String sql) {
    return sql.replace("${schema}", quoted);
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
