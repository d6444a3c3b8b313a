package dev.baton.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The CSV file of a sweep: a header, then one row per measured point (round, worker count), in the
 * order measured. RFC 4180 quoting (the default label has a comma); numbers with a dot and no
 * grouping; an unknown client CPU time is an empty field.
 *
 * <pre>
 * label,round,workers,jobs,jobs_per_s,jobs_per_s_incl_start,client_cpu_ms
 * "Baton, Java 17",1,4,20000,5321.4,5102.9,3921.0
 * </pre>
 *
 * <p>{@code jobs_per_s} and {@code jobs_per_s_incl_start} are {@link DrainBench}'s two rates;
 * {@code client_cpu_ms} is the CPU time of the whole benchmark process during the measured drain.
 */
final class SweepCsv {
  /** The first line of every sweep CSV. */
  static final String HEADER =
      "label,round,workers,jobs,jobs_per_s,jobs_per_s_incl_start,client_cpu_ms";

  private static final int FIELDS = HEADER.split(",").length;

  /** One measured point. {@code clientCpuMs} is NaN when it was not measured. */
  record Row(
      String label,
      int round,
      int workers,
      int jobs,
      double jobsPerSecond,
      double jobsPerSecondInclStart,
      double clientCpuMs) {}

  private SweepCsv() {}

  /**
   * Writes {@code rows} to {@code file}, replacing it whole (through a temporary file beside it, so
   * a reader never sees half a file and a sweep that stops leaves the rows measured so far).
   */
  static void write(Path file, List<Row> rows) throws IOException {
    StringBuilder sb = new StringBuilder(HEADER).append('\n');
    for (Row r : rows) {
      sb.append(quote(r.label()))
          .append(',')
          .append(r.round())
          .append(',')
          .append(r.workers())
          .append(',')
          .append(r.jobs())
          .append(',')
          .append(decimal(r.jobsPerSecond()))
          .append(',')
          .append(decimal(r.jobsPerSecondInclStart()))
          .append(',')
          .append(decimal(r.clientCpuMs()))
          .append('\n');
    }
    Path abs = file.toAbsolutePath();
    // Not Files.createTempFile: its owner-only permissions would stay on the result.
    Path tmp = abs.resolveSibling("." + abs.getFileName() + ".tmp");
    try {
      Files.writeString(tmp, sb, StandardCharsets.UTF_8);
      Files.move(tmp, abs, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /**
   * The rows of a sweep CSV. Throws {@link IllegalArgumentException} naming the file, the line and
   * what was expected when {@code file} is missing or not a sweep CSV.
   */
  static List<Row> read(Path file) throws IOException {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException(file + ": no such file; expected a CSV written by sweep");
    }
    if (lines.isEmpty() || !lines.get(0).strip().replace("\uFEFF", "").equals(HEADER)) {
      throw new IllegalArgumentException(
          file
              + ": not a sweep CSV: expected the header \""
              + HEADER
              + "\", got \""
              + (lines.isEmpty() ? "" : lines.get(0))
              + "\"");
    }
    List<Row> rows = new ArrayList<>();
    for (int i = 1; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.isBlank()) {
        continue;
      }
      String where = file + " line " + (i + 1);
      List<String> f = fields(line, where);
      if (f.size() != FIELDS) {
        throw new IllegalArgumentException(
            where + ": expected " + FIELDS + " fields (" + HEADER + "), got " + f.size());
      }
      if (f.get(0).isBlank()) {
        throw new IllegalArgumentException(where + ": label is empty; expected the series' name");
      }
      rows.add(
          new Row(
              f.get(0),
              whole(where, "round", f.get(1)),
              whole(where, "workers", f.get(2)),
              whole(where, "jobs", f.get(3)),
              rate(where, "jobs_per_s", f.get(4)),
              rate(where, "jobs_per_s_incl_start", f.get(5)),
              f.get(6).isEmpty() ? Double.NaN : rate(where, "client_cpu_ms", f.get(6))));
    }
    if (rows.isEmpty()) {
      throw new IllegalArgumentException(file + ": has a header but no rows; no point to plot");
    }
    return rows;
  }

  private static String quote(String s) {
    if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0 && s.indexOf('\r') < 0) {
      return s;
    }
    return '"' + s.replace("\"", "\"\"") + '"';
  }

  private static String decimal(double v) {
    return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.1f", v);
  }

  /** The fields of one line: commas separate, double quotes enclose, two quotes are one. */
  private static List<String> fields(String line, String where) {
    List<String> out = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quoted) {
        if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
          cur.append('"');
          i++;
        } else if (c == '"') {
          quoted = false;
        } else {
          cur.append(c);
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        out.add(cur.toString());
        cur.setLength(0);
      } else {
        cur.append(c);
      }
    }
    if (quoted) {
      throw new IllegalArgumentException(where + ": a quoted field is not closed");
    }
    out.add(cur.toString());
    return out;
  }

  private static int whole(String where, String column, String v) {
    try {
      int n = Integer.parseInt(v.strip());
      if (n > 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        where + ": " + column + " must be a positive whole number, got \"" + v + "\"");
  }

  private static double rate(String where, String column, String v) {
    try {
      double d = Double.parseDouble(v.strip());
      if (d >= 0 && Double.isFinite(d)) {
        return d;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        where + ": " + column + " must be a number of at least 0, got \"" + v + "\"");
  }
}
