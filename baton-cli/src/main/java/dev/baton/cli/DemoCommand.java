package dev.baton.cli;

import dev.baton.cli.demo.DemoReport;
import dev.baton.cli.demo.DemoSettings;
import dev.baton.cli.demo.ShopDemo;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code baton demo}: the shop of Baton's mission, with faults, checked end to end. */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "The shop: places orders, each in one transaction with its confirmation-email job (about"
          + " 5%% roll back, as declined payments), and sends the emails from three worker pods"
          + " (separate JVMs) through a mail provider on loopback that honours Idempotency-Key"
          + " and refuses stale fences. One pod is killed right after the provider sent an email"
          + " and before the job was completed, one is frozen (SIGSTOP) past its lease with a"
          + " send in flight, and every database connection of the pods is terminated once.",
      "",
      "Prints a live status line on stderr and a report on stdout (--json: one JSON object)."
          + " Exit 0 only if every invariant held: every committed order emailed exactly once,"
          + " no email for a rolled-back order, every job completed, and each fault did what it"
          + " should; else 1, naming the invariant that broke.",
      "",
      "Runs on an embedded PostgreSQL unless --database-url or BATON_DATABASE_URL names one;"
          + " there it (re)creates the schemas <demo-schema> and <demo-schema>_shop and leaves"
          + " them for inspection.",
      ""
    })
final class DemoCommand extends BaseCommand implements Callable<Integer> {

  @Option(
      names = "--orders",
      paramLabel = "N",
      defaultValue = "2000",
      description = "Orders to place (default: ${DEFAULT-VALUE})")
  int orders;

  @Option(
      names = "--pods",
      paramLabel = "N",
      defaultValue = "3",
      description =
          "Worker pods (JVMs) to start; 3 or more with faults (default: ${DEFAULT-VALUE})")
  int pods;

  @Option(
      names = "--concurrency",
      paramLabel = "N",
      defaultValue = "16",
      description = "Jobs each pod runs at once (default: ${DEFAULT-VALUE})")
  int concurrency;

  @Option(
      names = "--lease-ms",
      paramLabel = "MS",
      defaultValue = "3000",
      description =
          "The pods' lease and leader TTL in milliseconds: how long a dead or frozen pod keeps"
              + " its jobs (default: ${DEFAULT-VALUE})")
  long leaseMs;

  @Option(names = "--no-faults", description = "Kill, freeze and cut nothing")
  boolean noFaults;

  @Option(
      names = "--rollback-percent",
      paramLabel = "P",
      defaultValue = "5",
      description =
          "Share of order transactions that roll back, 0..100 (default: ${DEFAULT-VALUE})")
  int rollbackPercent;

  @Option(
      names = "--seed",
      paramLabel = "N",
      defaultValue = "1",
      description = "Seed of which orders roll back (default: ${DEFAULT-VALUE})")
  long seed;

  @Option(
      names = "--demo-schema",
      paramLabel = "SCHEMA",
      defaultValue = "baton_demo",
      description =
          "Schema of the demo's queue, dropped and recreated; the shop's tables go to"
              + " <SCHEMA>_shop (default: ${DEFAULT-VALUE})")
  String demoSchema;

  @Option(
      names = "--metrics-port",
      paramLabel = "PORT",
      defaultValue = "0",
      description =
          "Prometheus endpoint of the first pod; the next pods take the next ports; 0 picks free"
              + " ports (default: ${DEFAULT-VALUE}). The report lists the addresses.")
  int metricsPort;

  @Option(
      names = "--metrics-host",
      paramLabel = "HOST",
      defaultValue = "127.0.0.1",
      description = "Address the pods' Prometheus endpoints bind to (default: ${DEFAULT-VALUE})")
  String metricsHost;

  @Option(
      names = "--timeout-s",
      paramLabel = "SECONDS",
      defaultValue = "300",
      description =
          "Call the run failed if it has not finished by then (default: ${DEFAULT-VALUE})")
  int timeoutSeconds;

  @Option(
      names = "--unsafe-provider",
      hidden = true,
      description =
          "A mail provider that ignores idempotency keys and fences: the checks must fail")
  boolean unsafeProvider;

  @Override
  public Integer call() throws Exception {
    DemoSettings settings = settings();
    PrintWriter err = spec.commandLine().getErr();
    try (LocalPostgres db = root().givenOrEmbeddedDatabase(err)) {
      DemoReport report = ShopDemo.run(db.url(), settings, err, System.console() != null);
      if (!db.embedded()) {
        report
            .json()
            .put(
                "kept",
                "The run's rows are kept in the schemas "
                    + settings.schema()
                    + " and "
                    + settings.shopSchema()
                    + " of "
                    + root().databaseUrlForMessages());
      }
      if (json()) {
        Output.printJson(out(), report.json());
      } else {
        report.printText(out());
      }
      DemoReport.Invariant broken = report.firstBroken();
      if (broken != null) {
        throw new CommandFailedException(
            "demo invariant broken: " + broken.name() + " (" + broken.detail() + ")");
      }
      return BatonCli.OK;
    }
  }

  private DemoSettings settings() {
    if (orders < 1 || orders > 1_000_000) {
      throw new UsageException("--orders must be 1..1000000, got " + orders);
    }
    int minPods = noFaults ? 1 : 3;
    if (pods < minPods || pods > 16) {
      throw new UsageException(
          "--pods must be "
              + minPods
              + "..16"
              + (noFaults ? "" : " (the faults need a pod to kill, one to freeze and one healthy)")
              + ", got "
              + pods);
    }
    if (concurrency < 1 || concurrency > 256) {
      throw new UsageException("--concurrency must be 1..256, got " + concurrency);
    }
    if (leaseMs < 500 || leaseMs > 600_000) {
      throw new UsageException("--lease-ms must be 500..600000, got " + leaseMs);
    }
    if (rollbackPercent < 0 || rollbackPercent > 100) {
      throw new UsageException("--rollback-percent must be 0..100, got " + rollbackPercent);
    }
    if (!demoSchema.matches("[a-z_][a-z0-9_]{0,49}")) {
      throw new UsageException(
          "--demo-schema must be a lower-case identifier of at most 50 characters"
              + " ([a-z_][a-z0-9_]*), got '"
              + demoSchema
              + "'");
    }
    if (metricsPort < 0 || metricsPort > 65535 - pods * 2) {
      throw new UsageException("--metrics-port must be 0..65535, got " + metricsPort);
    }
    if (timeoutSeconds < 10) {
      throw new UsageException("--timeout-s must be at least 10, got " + timeoutSeconds);
    }
    return new DemoSettings(
        orders,
        pods,
        concurrency,
        Duration.ofMillis(leaseMs),
        !noFaults,
        rollbackPercent,
        seed,
        demoSchema,
        metricsHost,
        metricsPort,
        Duration.ofSeconds(timeoutSeconds),
        unsafeProvider);
  }
}
