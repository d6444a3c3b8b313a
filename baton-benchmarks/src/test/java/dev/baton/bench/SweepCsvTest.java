package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A sweep's CSV reads back as written, and {@code plot} draws what it reads. */
class SweepCsvTest {
  @TempDir Path dir;

  @Test
  void rowsReadBackAsWrittenWithQuotedLabelsAndAnUnknownCpuTime() throws Exception {
    List<SweepCsv.Row> rows =
        List.of(
            new SweepCsv.Row("Baton, Java 17", 1, 1, 20_000, 1234.5, 1100.1, 4321.0),
            new SweepCsv.Row(
                "Baton \"tuned\", Java 25", 1, 256, 20_000, 15403.2, 15000.0, Double.NaN));
    Path csv = dir.resolve("sweep.csv");

    SweepCsv.write(csv, rows);

    assertThat(Files.readAllLines(csv))
        .containsExactly(
            SweepCsv.HEADER,
            "\"Baton, Java 17\",1,1,20000,1234.5,1100.1,4321.0",
            "\"Baton \"\"tuned\"\", Java 25\",1,256,20000,15403.2,15000.0,");
    List<SweepCsv.Row> read = SweepCsv.read(csv);
    assertThat(read.get(0)).isEqualTo(rows.get(0));
    assertThat(read.get(1).label()).isEqualTo("Baton \"tuned\", Java 25");
    assertThat(read.get(1).clientCpuMs()).isNaN();
    assertThat(read.get(1).jobsPerSecond()).isEqualTo(15403.2);
  }

  @Test
  void plotDrawsOneSeriesPerLabelFromSeveralCsvs() throws Exception {
    Path a = dir.resolve("jdk17.csv");
    Path b = dir.resolve("jdk25.csv");
    SweepCsv.write(
        a,
        List.of(
            new SweepCsv.Row("Baton, Java 17", 1, 1, 300, 1_000, 900, 50),
            new SweepCsv.Row("Baton, Java 17", 1, 4, 300, 3_000, 2_800, 50)));
    SweepCsv.write(
        b,
        List.of(
            new SweepCsv.Row("Baton, Java 25", 1, 1, 300, 8_000, 7_000, 40),
            new SweepCsv.Row("Baton, Java 25", 1, 4, 300, 9_000, 8_500, 40)));
    Path png = dir.resolve("both.png");

    int code =
        BenchMain.run(
            new String[] {
              "plot",
              "--csv",
              a + "," + b,
              "--png",
              png.toString(),
              "--title",
              "Two JDKs",
              "--ref",
              "graphile=5000"
            });

    assertThat(code).isZero();
    BufferedImage image = ImageIO.read(png.toFile());
    assertThat(image.getWidth()).isEqualTo(ThroughputPlot.WIDTH);
    assertThat(image.getHeight()).isEqualTo(ThroughputPlot.HEIGHT);
    assertThat(colourCount(image, 0)).as("Java 17, the first label").isGreaterThan(50);
    assertThat(colourCount(image, 1)).as("Java 25, the second label").isGreaterThan(50);
  }

  @Test
  void aFileThatIsNotASweepCsvIsRejectedWithWhatWasExpected() throws Exception {
    Path other = dir.resolve("other.csv");
    Files.writeString(other, "name,value\nx,1\n");
    assertThatThrownBy(() -> SweepCsv.read(other))
        .hasMessageContaining("not a sweep CSV")
        .hasMessageContaining("expected the header \"" + SweepCsv.HEADER + "\"")
        .hasMessageContaining("got \"name,value\"");

    Path shortRow = dir.resolve("short.csv");
    Files.writeString(shortRow, SweepCsv.HEADER + "\nBaton,1,4,300\n");
    assertThatThrownBy(() -> SweepCsv.read(shortRow))
        .hasMessageContaining("short.csv line 2: expected 7 fields");

    Path badNumber = dir.resolve("bad.csv");
    Files.writeString(badNumber, SweepCsv.HEADER + "\nBaton,1,four,300,1.0,1.0,1.0\n");
    assertThatThrownBy(() -> SweepCsv.read(badNumber))
        .hasMessageContaining(
            "bad.csv line 2: workers must be a positive whole number, got \"four\"");
  }

  /** Pixels of series {@code series}'s colour below the legend (the top fifth of the image). */
  private static long colourCount(BufferedImage image, int series) {
    int want = ThroughputPlot.SERIES_COLOURS.get(series).getRGB() & 0xffffff;
    long n = 0;
    for (int y = image.getHeight() / 5; y < image.getHeight(); y++) {
      for (int x = 0; x < image.getWidth(); x++) {
        if ((image.getRGB(x, y) & 0xffffff) == want) {
          n++;
        }
      }
    }
    return n;
  }
}
