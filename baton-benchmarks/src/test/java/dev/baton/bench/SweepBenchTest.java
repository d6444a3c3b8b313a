package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testing.TestDatabase;
import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One short sweep against real PostgreSQL, through the command line: every (round, workers) point
 * is drained and lands in the CSV, interleaved round by round, and the chart is written. Asserts no
 * speed: only that every point measured something.
 */
class SweepBenchTest {
  @TempDir Path dir;

  @Test
  void aSweepWritesARowPerRoundAndWorkerCountAndAChart() throws Exception {
    Path csv = dir.resolve("sweep.csv");
    Path png = dir.resolve("sweep.png");

    int code =
        BenchMain.run(
            new String[] {
              "sweep",
              "--workers",
              "1,4",
              "--jobs",
              "300",
              "--warmup",
              "50",
              "--rounds",
              "2",
              "--timeout-s",
              "120",
              "--csv",
              csv.toString(),
              "--png",
              png.toString(),
              "--database-url",
              TestDatabase.get().jdbcUrl()
            });

    assertThat(code).isZero();
    List<SweepCsv.Row> rows = SweepCsv.read(csv);
    assertThat(rows)
        .extracting(SweepCsv.Row::round, SweepCsv.Row::workers)
        .as("round by round, each in the order given")
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(1, 1),
            org.assertj.core.groups.Tuple.tuple(1, 4),
            org.assertj.core.groups.Tuple.tuple(2, 1),
            org.assertj.core.groups.Tuple.tuple(2, 4));
    for (SweepCsv.Row r : rows) {
      assertThat(r.label()).isEqualTo(BenchMainOptions.defaultLabel());
      assertThat(r.jobs()).isEqualTo(300);
      assertThat(r.jobsPerSecond()).as("jobs/s of %s", r).isPositive();
      assertThat(r.jobsPerSecondInclStart()).as("jobs/s incl. start of %s", r).isPositive();
      assertThat(r.clientCpuMs()).as("client CPU of %s", r).isPositive();
    }
    BufferedImage image = ImageIO.read(png.toFile());
    assertThat(image.getWidth()).isEqualTo(ThroughputPlot.WIDTH);
    assertThat(image.getHeight()).isEqualTo(ThroughputPlot.HEIGHT);
  }
}
