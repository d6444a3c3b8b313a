package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad usage of {@code sweep} and {@code plot} ends with exit code 2 and a first line saying what
 * was wrong and what was expected, before any database is opened; the other commands keep their
 * options and messages.
 */
class SweepUsageTest {
  @TempDir Path dir;

  @Test
  void sweepTakesAListOfWorkerCountsAndDefaultsToPowersOfTwo() {
    BenchMainOptions.Sweep s = BenchMainOptions.parse(new String[] {"sweep"}).sweep();
    assertThat(s.workers()).containsExactly(1, 2, 4, 8, 16, 32, 64, 128, 256);
    assertThat(s.rounds()).isEqualTo(1);
    assertThat(s.label()).isEqualTo("Baton, Java " + Runtime.version().feature());
    assertThat(s.csv()).isNull();
    assertThat(s.png()).isNull();

    BenchMainOptions o =
        BenchMainOptions.parse(
            new String[] {
              "sweep",
              "--workers",
              "4,1,64",
              "--rounds=3",
              "--label",
              "JDK 25, prefetch 2x",
              "--ref",
              "graphile=13288,simple-java-batch=25_282"
            });
    assertThat(o.sweep().workers()).as("in the order given").containsExactly(4, 1, 64);
    assertThat(o.sweep().rounds()).isEqualTo(3);
    assertThat(o.sweep().label()).isEqualTo("JDK 25, prefetch 2x");
    assertThat(o.sweep().references())
        .containsExactly(
            new ThroughputPlot.Reference("graphile", 13288),
            new ThroughputPlot.Reference("simple-java-batch", 25282));
    assertThat(o.withWorkers(64).workers()).isEqualTo(64);
    assertThat(o.withWorkers(64).poolSize()).isEqualTo(72);
  }

  @Test
  void aZeroWorkerCountIsRejectedNamingTheOptionAndTheValue() {
    Usage u = run("sweep", "--workers", "0,4");
    assertThat(u.code()).isEqualTo(2);
    assertThat(u.firstLine())
        .isEqualTo(
            "baton-benchmarks: --workers of sweep expects a list of positive whole numbers such as"
                + " 1,2,4,8; got \"0\" in \"0,4\"");
    assertThat(run("sweep", "--workers", "1,x").firstLine()).contains("got \"x\" in \"1,x\"");
    assertThat(run("sweep", "--workers", "1,,4").firstLine()).contains("got \"\" in \"1,,4\"");
    assertThat(run("sweep", "--workers", "4,4").firstLine())
        .isEqualTo(
            "baton-benchmarks: --workers of sweep lists 4 twice in \"4,4\"; give each count once");
  }

  @Test
  void anOutputInAMissingDirectoryIsRejectedBeforeTheSweepStarts() {
    Path missing = dir.resolve("no-such-dir").resolve("sweep.png");
    Usage u =
        run("sweep", "--png", missing.toString(), "--database-url", "jdbc:postgresql://nowhere/x");
    assertThat(u.code()).isEqualTo(2);
    assertThat(u.firstLine())
        .isEqualTo(
            "baton-benchmarks: --png "
                + missing
                + ": directory "
                + missing.getParent()
                + " does not exist; create it first");
    assertThat(run("sweep", "--csv", missing.resolveSibling("x.csv").toString()).firstLine())
        .contains("--csv ")
        .contains("does not exist; create it first");
    assertThat(run("sweep", "--png", dir.resolve("chart.jpg").toString()).firstLine())
        .contains("--png expects a file name ending in .png, got \"");
    assertThat(
            run("sweep", "--png", dir.toString() + "/x.png", "--csv", dir + "/x.png").firstLine())
        .contains("--csv and --png name the same file");
  }

  @Test
  void labelsTitlesAndReferencesOfTheWrongShapeAreRejectedWithTheExpectedShape() {
    assertThat(run("sweep", "--label", " ").firstLine())
        .isEqualTo(
            "baton-benchmarks: --label expects one line of text (no line breaks or control"
                + " characters, not blank), got \" \"");
    assertThat(run("sweep", "--label", "Baton\nJava 17").firstLine())
        .contains("--label expects one line of text")
        .contains("got \"Baton\\nJava 17\"");
    assertThat(run("sweep", "--title", "").firstLine())
        .contains("--title expects one line of text");
    Usage ref = run("sweep", "--ref", "graphile:13288");
    assertThat(ref.code()).isEqualTo(2);
    assertThat(ref.firstLine())
        .isEqualTo(
            "baton-benchmarks: --ref expects NAME=JOBS_PER_S[,NAME=JOBS_PER_S...] with a positive"
                + " number, e.g. graphile=13288,simple-java-batch=25282; got \"graphile:13288\" in"
                + " \"graphile:13288\"");
    assertThat(run("sweep", "--ref", "graphile=13288,pgboss=-1").firstLine())
        .contains("got \"pgboss=-1\"");
    assertThat(run("sweep", "--rounds", "0").firstLine())
        .isEqualTo("baton-benchmarks: --rounds must be positive, got 0");
    assertThat(run("sweep", "--jobs", "300,600").firstLine())
        .isEqualTo(
            "baton-benchmarks: --jobs of sweep is one count, drained at every point; got"
                + " \"300,600\"");
  }

  @Test
  void otherCommandsKeepOneWorkerCountAndRejectSweepOptions() {
    assertThat(run("drain", "--workers", "1,2").firstLine())
        .isEqualTo("baton-benchmarks: --workers expects a whole number, got \"1,2\"");
    assertThat(run("drain", "--workers", "0").firstLine())
        .isEqualTo("baton-benchmarks: --workers must be positive, got 0");
    assertThat(BenchMainOptions.parse(new String[] {"drain", "--workers", "16"}).workers())
        .isEqualTo(16);
    assertThat(BenchMainOptions.parse(new String[] {"drain"}).sweep()).isNull();
    assertThat(run("drain", "--png", "x.png").firstLine())
        .isEqualTo("baton-benchmarks: option --png is for sweep (and plot), not for drain");
  }

  @Test
  void plotNeedsExistingCsvsAndAPng() throws Exception {
    Usage noPng = run("plot", "--csv", "a.csv");
    assertThat(noPng.code()).isEqualTo(2);
    assertThat(noPng.firstLine()).contains("no such file; expected a CSV written by sweep --csv");

    Path csv = dir.resolve("a.csv");
    SweepCsv.write(csv, java.util.List.of(new SweepCsv.Row("x", 1, 1, 10, 1, 1, 1)));
    assertThat(run("plot", "--csv", csv.toString()).firstLine())
        .isEqualTo("baton-benchmarks: plot needs --png FILE: the image to write");
    assertThat(run("plot", "--png", dir + "/x.png").firstLine())
        .isEqualTo(
            "baton-benchmarks: plot needs --csv FILE[,FILE...]: the CSVs written by sweep --csv");
    assertThat(
            run("plot", "--csv", csv.toString(), "--png", dir + "/x.png", "--rounds", "3")
                .firstLine())
        .isEqualTo(
            "baton-benchmarks: unknown option --rounds of plot; expected --csv, --png, --title or"
                + " --ref");

    Path notSweep = dir.resolve("other.csv");
    Files.writeString(notSweep, "a,b\n1,2\n");
    Usage wrongFile = run("plot", "--csv", notSweep.toString(), "--png", dir + "/x.png");
    assertThat(wrongFile.code()).isEqualTo(2);
    assertThat(wrongFile.firstLine())
        .startsWith(
            "baton-benchmarks: plot: " + notSweep + ": not a sweep CSV: expected the header");
    assertThat(Files.exists(dir.resolve("x.png"))).as("nothing written").isFalse();
  }

  @Test
  void parseErrorsAreIllegalArgumentsForTheCaller() {
    assertThatThrownBy(() -> PlotOptions.references("--ref", "=5"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("got \"=5\"");
  }

  private record Usage(int code, String stderr) {
    String firstLine() {
      return stderr.lines().findFirst().orElse("");
    }
  }

  /** Runs BenchMain with {@code args}, capturing what it prints on stderr. */
  private static Usage run(String... args) {
    PrintStream saved = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      int code = BenchMain.run(args);
      return new Usage(code, err.toString(StandardCharsets.UTF_8));
    } finally {
      System.setErr(saved);
    }
  }
}
