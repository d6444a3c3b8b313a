package dev.baton;

/**
 * The Baton tables are at a version newer than this library knows: a newer Baton migrated them. A
 * client refuses to start on them and the {@link dev.baton.migrate.Migrator} refuses to change
 * them, since this library cannot know what the newer version changed; run the newer Baton (or
 * revert the schema with its migrator first).
 */
public class SchemaTooNewException extends BatonException {
  private static final long serialVersionUID = 1L;
  private final String schema;
  private final int found;
  private final int known;

  /** Creates the exception for {@code schema}, found at {@code found}, newer than {@code known}. */
  public SchemaTooNewException(String schema, int found, int known) {
    super(
        "Baton schema \""
            + schema
            + "\" is at version "
            + found
            + ", newer than this library knows (version "
            + known
            + "): a newer Baton migrated it; run that version of Baton or a later one, or revert"
            + " the schema to version "
            + known
            + " with that version's migrator");
    this.schema = schema;
    this.found = found;
    this.known = known;
  }

  /** The schema that was checked. */
  public String schema() {
    return schema;
  }

  /** The version the schema is at. */
  public int found() {
    return found;
  }

  /** The latest version this library knows. */
  public int known() {
    return known;
  }
}
