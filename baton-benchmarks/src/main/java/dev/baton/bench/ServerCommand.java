package dev.baton.bench;

import dev.baton.cli.bench.Bench;
import dev.baton.cli.bench.BenchDatabase;
import dev.baton.cli.bench.Figures;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What the server-cost commands with options of their own ({@code idle}, {@code fleet}) share: a
 * server with {@code pg_stat_statements} loaded (the embedded one, unless {@code --database-url}),
 * the block of figures with the server, client and build it came from, their option values.
 */
final class ServerCommand {
  private ServerCommand() {}

  /** The measurement of one command, adding its lines to {@code figures}. */
  interface Body {
    void run(BenchDatabase db, Figures figures) throws Exception;
  }

  /**
   * Opens the server at {@code url} (or an embedded one, {@code serverConfig} on top of {@code
   * pg_stat_statements}), runs {@code body}, prints the figures; 0 when it finished, 1 when it
   * failed.
   */
  static int run(
      String command,
      String url,
      Map<String, String> serverConfig,
      List<String> raw,
      PrintStream out,
      PrintStream err,
      Body body) {
    Figures figures = new Figures();
    String started = Instant.now().toString();
    Throwable failure = null;
    String server = "?";
    Map<String, String> config = new java.util.HashMap<>(serverConfig);
    config.put("shared_preload_libraries", "pg_stat_statements");
    try (BenchDatabase db = BenchDatabase.open(url, false, config)) {
      server = Bench.describe(db);
      body.run(db, figures);
    } catch (Throwable e) {
      failure = e;
      e.printStackTrace(err);
    }
    out.println();
    out.println("==== Baton benchmark: " + command + " (" + started + ") ====");
    out.println("server  : " + server);
    out.println("client  : " + Bench.jvm() + "; load average " + Bench.loadAverage());
    out.println("core    : " + Bench.coreFingerprint());
    out.print(figures.render());
    if (failure != null) {
      out.println("FAILED  : " + failure);
    }
    out.println(
        "rerun   : java -jar baton-benchmarks/target/baton-benchmarks.jar "
            + command
            + " "
            + Bench.shellWords(raw));
    return failure == null ? 0 : 1;
  }

  /** Whether {@code pg_stat_statements} can be read (created here if the server loads it). */
  static boolean enableStatementStats(Connection c) {
    try (Statement st = c.createStatement()) {
      st.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
      st.executeQuery("SELECT count(*) FROM pg_stat_statements").close();
      return true;
    } catch (SQLException e) {
      System.err.println("[bench] no pg_stat_statements (" + e.getMessage().trim() + ")");
      return false;
    }
  }

  /** {@code value} as a positive whole number, or an error naming the option. */
  static int positive(String name, String value) {
    try {
      int v = Integer.parseInt(value.trim());
      if (v > 0) {
        return v;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        "option " + name + ": expected a positive whole number, got \"" + value + "\"");
  }
}
