package dev.baton.cli;

import dev.baton.cli.bench.Bench;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code baton bench}: drain rate, pickup latency and enqueue rate of Baton against the user's
 * database or an embedded one ({@link Bench}; the shape of River's {@code river bench}). The
 * command line hands its unknown options to the benchmark as positional arguments, in order ({@link
 * BatonCli#commandLine}).
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = {
      "Benchmarks of Baton against one PostgreSQL server; they print figures and the command that"
          + " reruns them, and assert nothing. Arguments go to the benchmark as they are:",
      "  baton bench drain [--jobs 20000,100000] [--workers 64] [--prefetch N]",
      "  baton bench latency [--jobs 500] [--rate 50]",
      "  baton bench enqueue [--jobs 2000] [--bulk 10000]",
      "  baton bench all",
      "Without --database-url (or BATON_DATABASE_URL) they start an embedded PostgreSQL; each run"
          + " works in a schema of its own (bench_*), dropped at exit. 'baton bench help' prints"
          + " every option (and says 'unknown command'). Sweeps, the soak and the peer comparison"
          + " are in baton-benchmarks (docs/BENCHMARKS.md)."
    })
final class BenchCommand extends BaseCommand implements Callable<Integer> {

  @Parameters(arity = "0..*", paramLabel = "ARGS", description = "The benchmark and its options")
  List<String> args = new ArrayList<>();

  @Override
  public Integer call() {
    List<String> all = new ArrayList<>(args);
    // --database-url is the root's option (every command takes it), BATON_DATABASE_URL its
    // default; hand it on, checked for shape like every command's.
    String url = root().databaseUrl;
    if (url == null || url.isBlank()) {
      url = root().env().get(Database.ENV_URL);
    }
    if (url != null && !url.isBlank()) {
      all.add("--database-url");
      all.add(Database.resolveUrl(root().databaseUrl, root().env()));
    }
    return Bench.run(all.toArray(new String[0]));
  }
}
