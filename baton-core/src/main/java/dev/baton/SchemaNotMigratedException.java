package dev.baton;

/**
 * The Baton tables are missing or older than this library expects. Run {@link
 * dev.baton.migrate.Migrator#up()} (or apply the SQL it prints) before starting a client.
 */
public class SchemaNotMigratedException extends BatonException {
  private static final long serialVersionUID = 1L;
  private final String schema;

  /** Creates the exception for {@code schema}. */
  public SchemaNotMigratedException(String schema, String why) {
    super(
        "Baton schema \""
            + schema
            + "\" is not ready: "
            + why
            + "; run new Migrator(dataSource, \""
            + schema
            + "\").up() or apply the SQL printed by Migrator.print()");
    this.schema = schema;
  }

  /** The schema that was checked. */
  public String schema() {
    return schema;
  }
}
