package dev.baton.bench;

import dev.baton.cli.bench.OptionWords;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The command line of {@code plot}: {@code plot --csv A.csv[,B.csv...] --png OUT.png [--title T]
 * [--ref NAME=JOBS_PER_S[,...]]}. {@code --csv} may also be repeated. Also the checks of the values
 * {@code sweep} shares with it ({@code --png}, {@code --title}, {@code --ref}, {@code --label}).
 *
 * <p>Every problem is an {@link IllegalArgumentException} whose message names the option, what was
 * expected and what was given; it is raised before any work starts (a sweep would otherwise fail
 * only at its end, at the PNG).
 */
record PlotOptions(
    List<Path> csvs, Path png, String title, List<ThroughputPlot.Reference> references) {

  /** Parses {@code args} (the first is {@code plot}). */
  static PlotOptions parse(String[] args) {
    List<Path> csvs = new ArrayList<>();
    Path png = null;
    String title = ThroughputPlot.DEFAULT_TITLE;
    List<ThroughputPlot.Reference> refs = List.of();
    List<OptionWords.Option> options =
        OptionWords.split(
            List.of(args).subList(1, args.length),
            Set.of(),
            name -> {
              if (!List.of("--csv", "--png", "--title", "--ref", "--database-url").contains(name)) {
                throw new IllegalArgumentException(
                    "unknown option " + name + " of plot; expected --csv, --png, --title or --ref");
              }
            });
    for (OptionWords.Option o : options) {
      String name = o.name();
      String value = o.value();
      switch (name) {
        case "--csv" -> {
          for (String part : value.split(",")) {
            csvs.add(inputFile(name, part));
          }
        }
        case "--png" -> png = pngFile(name, value);
        case "--title" -> title = oneLine(name, value);
        case "--ref" -> refs = references(name, value);
        // `baton bench` hands on the root's --database-url to every benchmark; plot reads none.
        case "--database-url" -> {}
        default -> throw new IllegalStateException("unreachable: " + name);
      }
    }
    if (csvs.isEmpty()) {
      throw new IllegalArgumentException(
          "plot needs --csv FILE[,FILE...]: the CSVs written by sweep --csv");
    }
    if (png == null) {
      throw new IllegalArgumentException("plot needs --png FILE: the image to write");
    }
    return new PlotOptions(List.copyOf(csvs), png, title, refs);
  }

  /** An existing regular file. */
  static Path inputFile(String option, String value) {
    Path p = path(option, value);
    if (!Files.isRegularFile(p)) {
      throw new IllegalArgumentException(
          option + " " + value + ": no such file; expected a CSV written by sweep --csv");
    }
    return p;
  }

  /** A file that can be created: its directory exists and it is not a directory itself. */
  static Path outputFile(String option, String value) {
    Path p = path(option, value);
    if (Files.isDirectory(p)) {
      throw new IllegalArgumentException(
          option + " " + value + ": is a directory; expected the path of a file to write");
    }
    Path dir = p.toAbsolutePath().getParent();
    if (dir == null || !Files.isDirectory(dir)) {
      throw new IllegalArgumentException(
          option + " " + value + ": directory " + dir + " does not exist; create it first");
    }
    if (!Files.isWritable(dir)) {
      throw new IllegalArgumentException(
          option + " " + value + ": directory " + dir + " is not writable");
    }
    return p;
  }

  /** An {@link #outputFile} named {@code *.png}. */
  static Path pngFile(String option, String value) {
    if (!value.toLowerCase(Locale.ROOT).endsWith(".png")) {
      throw new IllegalArgumentException(
          option + " expects a file name ending in .png, got \"" + value + "\"");
    }
    return outputFile(option, value);
  }

  /** A label or title: one line of text, not blank. */
  static String oneLine(String option, String value) {
    if (value.isBlank() || value.chars().anyMatch(Character::isISOControl)) {
      throw new IllegalArgumentException(
          option
              + " expects one line of text (no line breaks or control characters, not blank), got"
              + " \""
              + value.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
              + "\"");
    }
    return value.strip();
  }

  /** {@code NAME=JOBS_PER_S[,NAME=JOBS_PER_S...]}, e.g. {@code graphile=13288,pg-boss=12388}. */
  static List<ThroughputPlot.Reference> references(String option, String value) {
    List<ThroughputPlot.Reference> out = new ArrayList<>();
    for (String part : value.split(",", -1)) {
      int eq = part.lastIndexOf('=');
      String name = eq > 0 ? part.substring(0, eq).strip() : "";
      String number = eq > 0 ? part.substring(eq + 1).strip().replace("_", "") : "";
      double v;
      try {
        v = Double.parseDouble(number);
      } catch (NumberFormatException e) {
        v = Double.NaN;
      }
      if (name.isEmpty()
          || name.chars().anyMatch(Character::isISOControl)
          || !(v > 0)
          || !Double.isFinite(v)) {
        throw new IllegalArgumentException(
            option
                + " expects NAME=JOBS_PER_S[,NAME=JOBS_PER_S...] with a positive number, e.g."
                + " graphile=13288,simple-java-batch=25282; got \""
                + part
                + "\" in \""
                + value
                + "\"");
      }
      out.add(new ThroughputPlot.Reference(name, v));
    }
    return List.copyOf(out);
  }

  private static Path path(String option, String value) {
    if (value.isBlank()) {
      throw new IllegalArgumentException(option + " expects a file path, got \"\"");
    }
    try {
      return Path.of(value);
    } catch (InvalidPathException e) {
      throw new IllegalArgumentException(
          option + " expects a file path, got \"" + value + "\": " + e.getReason());
    }
  }
}
