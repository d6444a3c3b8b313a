package dev.baton.bench.pgbench;

import dev.baton.migrate.Migrator;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Prints the SQL of Baton's migrations for one schema ({@link Migrator#print()}), for {@code
 * baton-benchmarks/pgbench/run.sh} to pipe into psql:
 *
 * <pre>
 * java -cp baton-benchmarks/target/baton-benchmarks.jar dev.baton.bench.pgbench.PrintSchema [schema]
 * </pre>
 *
 * <p>The schema defaults to {@code baton}, the one the pgbench scripts name. Connects to nothing.
 */
public final class PrintSchema {
  private PrintSchema() {}

  /** Prints the migration SQL on stdout; exit code 2 on a bad schema name. */
  public static void main(String[] args) {
    String schema = args.length > 0 ? args[0] : "baton";
    try {
      // print() reads only the SQL shipped in the jar; the data source is never connected.
      System.out.print(new Migrator(new PGSimpleDataSource(), schema).print());
      System.out.flush();
    } catch (RuntimeException e) {
      System.err.println("PrintSchema: " + e.getMessage());
      System.exit(2);
    }
  }
}
