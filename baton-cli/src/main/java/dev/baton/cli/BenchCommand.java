package dev.baton.cli;

import dev.baton.bench.BenchMain;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code baton bench}: the benchmarks of {@code baton-benchmarks}, with their own arguments (the
 * shape of River's {@code river bench}). The command line hands its unknown options to the
 * benchmark as positional arguments, in order ({@link BatonCli#commandLine}).
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = {
      "Benchmarks of Baton against one PostgreSQL server; they print figures and the command that"
          + " reruns them, and assert nothing. Arguments go to the benchmark as they are:",
      "  baton bench drain [--jobs 20000,100000] [--workers 64] [--database-url JDBC_URL]",
      "  baton bench latency [--jobs 500] [--rate 50]",
      "  baton bench enqueue [--jobs 2000]",
      "  baton bench all",
      "  baton bench sweep [--workers 1,2,4,8] [--rounds 3] [--csv F] [--png F]",
      "  baton bench plot --csv A.csv,B.csv --png OUT.png [--ref NAME=JOBS_PER_S]",
      "  baton bench soak [--rate 2000] [--minutes 30] [--csv PATH]   (soak --help)",
      "  baton bench harness    (the peers harness's external-command contract; env settings)",
      "  baton bench hardbyte   (hardbyte/postgresql-job-queue-benchmarking's adapter; env)",
      "Without --database-url the first six start an embedded PostgreSQL. 'baton bench help'"
          + " prints every option (and says 'unknown command'); docs/BENCHMARKS.md has the side-by-side runs with the peers."
    })
final class BenchCommand extends BaseCommand implements Callable<Integer> {

  @Parameters(arity = "0..*", paramLabel = "ARGS", description = "The benchmark and its options")
  List<String> args = new ArrayList<>();

  @Override
  public Integer call() {
    List<String> all = new ArrayList<>(args);
    // --database-url is the root's option (every command takes it); hand it on.
    if (root().databaseUrl != null) {
      all.add("--database-url");
      all.add(root().databaseUrl);
    }
    return BenchMain.run(all.toArray(new String[0]));
  }
}
