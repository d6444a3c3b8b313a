package dev.baton.cli;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.admin.BatonAdmin;
import dev.baton.migrate.Migrator;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import javax.sql.DataSource;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * The {@code baton} command: operations on a Baton schema in PostgreSQL.
 *
 * <p>Exit codes: {@value #OK} on success, {@value #FAILED} when the command ran and failed (the
 * database is unreachable, a job does not exist or is running), {@value #USAGE} when the command
 * line is wrong (unknown option, malformed JSON, no database URL). Errors are one line on stderr,
 * naming what was wrong and how to fix it; {@code --verbose} adds the stack trace.
 */
@Command(
    name = "baton",
    mixinStandardHelpOptions = true,
    versionProvider = BatonCli.Version.class,
    description = "Operate a Baton job queue in PostgreSQL.",
    footer = {
      "",
      "The database: --database-url, else the environment variable "
          + Database.ENV_URL
          + ", a JDBC URL such as",
      "  jdbc:postgresql://localhost:5432/app?user=baton&password=secret",
      "Exit codes: 0 success, 1 failure, 2 usage error."
    },
    subcommands = {
      MigrateCommand.class,
      EnqueueCommand.class,
      JobsCommand.class,
      QueuesCommand.class,
      NodesCommand.class,
      StatsCommand.class,
      WorkerCommand.class,
      DashboardCommand.class,
      DemoCommand.class,
      LabCommand.class,
      BenchCommand.class
    })
public final class BatonCli implements Callable<Integer> {

  /** Exit code of a command that did what it was asked. */
  public static final int OK = 0;

  /** Exit code of a command that ran and failed. */
  public static final int FAILED = 1;

  /** Exit code of a wrong command line. */
  public static final int USAGE = 2;

  @Option(
      names = "--database-url",
      paramLabel = "JDBC_URL",
      scope = ScopeType.INHERIT,
      description =
          "JDBC URL of the database, e.g. jdbc:postgresql://host:5432/db?user=u&password=p"
              + " (default: $"
              + Database.ENV_URL
              + ")")
  String databaseUrl;

  @Option(
      names = "--schema",
      paramLabel = "SCHEMA",
      scope = ScopeType.INHERIT,
      defaultValue = BatonConfig.DEFAULT_SCHEMA,
      description = "Schema of Baton's tables (default: ${DEFAULT-VALUE})")
  String schema;

  @Option(
      names = "--json",
      scope = ScopeType.INHERIT,
      description = "Print one JSON document on stdout instead of text")
  boolean json;

  @Option(
      names = "--verbose",
      scope = ScopeType.INHERIT,
      description = "Print the stack trace of an error")
  boolean verbose;

  @Spec CommandSpec spec;

  private final Map<String, String> env;
  private DataSource dataSource;
  private boolean schemaChecked;

  BatonCli(Map<String, String> env) {
    this.env = Objects.requireNonNull(env, "env");
  }

  // The driver logs to java.util.logging (e.g. a bad port in the URL); the command reports errors
  // itself, once. Held here so the configured logger is not collected.
  private static final java.util.logging.Logger DRIVER_LOG =
      java.util.logging.Logger.getLogger("org.postgresql");

  /** Runs the command with {@code args} and exits with its exit code. */
  public static void main(String[] args) {
    DRIVER_LOG.setLevel(java.util.logging.Level.OFF);
    // Before any HTTP server of the JDK exists (metrics, dashboard): it reads the switch once.
    MetricsEndpoint.noDelay();
    PrintWriter out =
        new PrintWriter(new java.io.OutputStreamWriter(System.out, StandardCharsets.UTF_8), true);
    PrintWriter err =
        new PrintWriter(new java.io.OutputStreamWriter(System.err, StandardCharsets.UTF_8), true);
    int code = commandLine(out, err, System.getenv()).execute(args);
    out.flush();
    err.flush();
    System.exit(code);
  }

  /**
   * A command line writing to {@code out} and {@code err} and reading {@code BATON_DATABASE_URL}
   * from {@code env}; {@link CommandLine#execute} runs it once and returns the exit code.
   */
  public static CommandLine commandLine(PrintWriter out, PrintWriter err, Map<String, String> env) {
    BatonCli root = new BatonCli(env);
    CommandLine cl = new CommandLine(root);
    cl.setOut(out);
    cl.setErr(err);
    Errors errors = new Errors(root);
    cl.setParameterExceptionHandler(errors::onParameterException);
    cl.setExecutionExceptionHandler(errors::onExecutionException);
    cl.setExecutionStrategy(
        parsed -> {
          String replaced = Errors.replacedText(parsed.expandedArgs());
          if (replaced != null) {
            throw new ParameterException(parsed.commandSpec().commandLine(), replaced);
          }
          return new CommandLine.RunLast().execute(parsed);
        });
    // baton bench passes the benchmark's own options through, in order.
    cl.getSubcommands().get("bench").setUnmatchedOptionsArePositionalParams(true);
    return cl;
  }

  @Override
  public Integer call() {
    throw new UsageException(
        "missing command; one of " + String.join(", ", spec.subcommands().keySet()));
  }

  /** The database, from --database-url or the environment. */
  DataSource dataSource() {
    if (dataSource == null) {
      dataSource = Database.dataSource(Database.resolveUrl(databaseUrl, env));
    }
    return dataSource;
  }

  /**
   * The database given by --database-url or the environment, else a new embedded PostgreSQL (for
   * the commands that bring their own: demo, lab); close it when done.
   */
  LocalPostgres givenOrEmbeddedDatabase(PrintWriter progress) {
    return LocalPostgres.open(databaseUrl, env, progress);
  }

  /** The environment the command reads (BATON_DATABASE_URL). */
  Map<String, String> env() {
    return env;
  }

  /**
   * A HikariCP pool of at most {@code size} connections to the database, for a command that runs a
   * client (worker); close it when done.
   */
  com.zaxxer.hikari.HikariDataSource pool(int size) {
    com.zaxxer.hikari.HikariConfig cfg = new com.zaxxer.hikari.HikariConfig();
    cfg.setJdbcUrl(Database.resolveUrl(databaseUrl, env));
    cfg.setPoolName("baton-cli");
    cfg.setMaximumPoolSize(size);
    // A worker starts even while the database is briefly away; the client retries.
    cfg.setInitializationFailTimeout(-1);
    // Named, not detected: a first connection cut during HikariCP's detection would leave the
    // pool refusing every connection (see dev.baton.cli.demo.Pod).
    cfg.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
    cfg.setDataSourceProperties(Database.driverProperties(false));
    cfg.addDataSourceProperty("ApplicationName", "baton-cli");
    return new com.zaxxer.hikari.HikariDataSource(Pools.forBaton(cfg));
  }

  /** The URL as given, redacted, for messages. */
  String databaseUrlForMessages() {
    String url = databaseUrlGiven();
    return url == null ? null : Database.redact(url, url);
  }

  /** The URL as given, unredacted (its passwords are masked in whatever is printed), or null. */
  String databaseUrlGiven() {
    return databaseUrl != null ? databaseUrl : env.get(Database.ENV_URL);
  }

  /**
   * The operator API of the schema: jobs, queues and the cluster, with no client built. Actions
   * record {@link Database#operatorId()} as who took them.
   */
  BatonAdmin admin() {
    requireLatestSchema();
    return new BatonAdmin(dataSource(), schema);
  }

  /**
   * Checks, once per command, that the schema is at the version this command knows before it reads
   * or writes jobs: an older one lacks columns a statement names, a newer one may mean something
   * else by them.
   */
  void requireLatestSchema() {
    if (!schemaChecked) {
      new Migrator(dataSource(), schema).requireLatest();
      schemaChecked = true;
    }
  }

  /** Whether --json was given. */
  boolean json() {
    return json;
  }

  /** The schema. */
  String schema() {
    return schema;
  }

  /** Whether --verbose was given. */
  boolean verbose() {
    return verbose;
  }

  /** The version of Baton this command runs. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = Baton.class.getPackage().getImplementationVersion();
      return new String[] {"baton " + (v != null ? v : "(development build)")};
    }
  }
}
