package dev.baton.cli.bench;

import dev.baton.Secrets;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;

/**
 * {@code baton bench}: drain rate, pickup latency and enqueue rate of Baton against one PostgreSQL
 * server, the user's own ({@code --database-url}) or an embedded one. It prints figures and the
 * command that reruns them; it never asserts a time.
 *
 * <pre>
 * baton bench drain [--jobs 20000,100000] [--workers 64]
 * baton bench latency [--jobs 500] [--rate 50]
 * baton bench enqueue [--jobs 2000]
 * baton bench all
 * </pre>
 *
 * <p>Without {@code --database-url} an embedded PostgreSQL is started with the server's durability
 * defaults ({@code fsync} and {@code synchronous_commit} on). Every run works in a new schema
 * migrated with {@link dev.baton.migrate.Migrator}, dropped at exit unless {@code --keep-schemas}.
 * Progress goes to stderr; the final block of figures goes to stdout.
 *
 * <p>The benchmarks module builds its own commands on {@link #measure} and the measurements of this
 * package; that is why they are public. They are not a library API.
 */
public final class Bench {
  private Bench() {}

  /** What a run measures, on the opened server, adding its lines to the figures. */
  public interface Body {
    /** Measures; an exception ends the run, reported as FAILED below the figures so far. */
    void run(BenchDatabase db, Figures figures) throws Exception;
  }

  /**
   * Runs {@code baton bench} with {@code args} (a command of {@link BenchOptions#COMMANDS} and its
   * options). Returns 0 when every run finished, 1 when one failed, 2 on bad usage.
   */
  public static int run(String[] args) {
    BenchOptions opts;
    try {
      opts = BenchOptions.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("baton bench: " + e.getMessage());
      System.err.print(BenchOptions.USAGE);
      return 2;
    }
    return measure(
        opts,
        String.valueOf(opts.workers()),
        String.valueOf(opts.poolSize()),
        List.of("rerun   : baton bench " + shellWords(opts.rawArgs())),
        (db, figures) -> measureStandard(db, opts, figures));
  }

  /**
   * Runs {@code drain}, {@code latency}, {@code enqueue} or {@code all}, as {@code opts.command()}
   * says, with each one's default job counts.
   */
  public static void measureStandard(BenchDatabase db, BenchOptions opts, Figures figures)
      throws Exception {
    switch (opts.command()) {
      case "drain" -> drain(db, opts, figures, jobsOr(opts, 20_000, 100_000));
      case "latency" -> latency(db, opts, figures, jobsOr(opts, 500));
      case "enqueue" -> enqueue(db, opts, figures, jobsOr(opts, 2_000));
      case "all" -> {
        drain(db, opts, figures, jobsOr(opts, 20_000, 100_000));
        latency(db, opts.withoutWarmup(), figures, List.of(500));
        enqueue(db, opts.withoutWarmup(), figures, List.of(2_000));
      }
      default ->
          throw new IllegalArgumentException("not a command of baton bench: " + opts.command());
    }
  }

  /**
   * Opens the server of {@code opts}, runs {@code body}, and prints the report on stdout: the
   * server, the client ({@code workers} and {@code pool} as the caller describes them), which Baton
   * was measured, the figures, and the {@code reruns} lines. Returns 0 when {@code body} finished,
   * 1 when it failed.
   */
  public static int measure(
      BenchOptions opts, String workers, String pool, List<String> reruns, Body body) {
    Figures figures = new Figures();
    String started = Instant.now().toString();
    String server = "?";
    Throwable failure = null;
    try (BenchDatabase db = BenchDatabase.open(opts.databaseUrl(), opts.keepSchemas())) {
      server = describe(db);
      System.err.println("[bench] server: " + server);
      body.run(db, figures);
    } catch (Throwable e) {
      failure = e;
      e.printStackTrace();
    }
    System.out.println();
    System.out.println("==== Baton benchmark: " + opts.command() + " (" + started + ") ====");
    System.out.println("server  : " + server);
    System.out.println(
        "client  : "
            + jvm()
            + "; workers "
            + workers
            + " ("
            + (Runtime.version().feature() >= 21 ? "virtual threads" : "platform threads")
            + "), pool of the working client "
            + pool);
    System.out.println("core    : " + coreFingerprint());
    System.out.print(figures.render());
    if (failure != null) {
      System.out.println("FAILED  : " + failure);
    }
    reruns.forEach(System.out::println);
    return failure == null ? 0 : 1;
  }

  private static List<Integer> jobsOr(BenchOptions opts, Integer... defaults) {
    return opts.jobs() != null ? opts.jobs() : List.of(defaults);
  }

  private static void drain(BenchDatabase db, BenchOptions opts, Figures f, List<Integer> jobs)
      throws Exception {
    DrainBench b = new DrainBench(db, opts, f);
    for (int n : jobs) {
      b.run(n);
    }
  }

  private static void latency(BenchDatabase db, BenchOptions opts, Figures f, List<Integer> jobs)
      throws Exception {
    LatencyBench b = new LatencyBench(db, opts, f);
    for (int n : jobs) {
      b.run(n);
    }
  }

  private static void enqueue(BenchDatabase db, BenchOptions opts, Figures f, List<Integer> jobs)
      throws Exception {
    EnqueueBench b = new EnqueueBench(db, opts, f);
    for (int n : jobs) {
      b.run(n);
    }
  }

  /** The server's version, where it is, and the settings of {@link BenchDatabase#describe()}. */
  public static String describe(BenchDatabase db) {
    Map<String, String> d = db.describe();
    String where = db.embedded() ? "embedded" : Secrets.mask(db.jdbcUrl(), db.jdbcUrl());
    return "PostgreSQL "
        + d.getOrDefault("server_version", "?")
        + " ("
        + where
        + "); "
        + d.entrySet().stream()
            .filter(e -> !e.getKey().equals("server_version"))
            .map(e -> e.getKey() + "=" + e.getValue())
            .collect(Collectors.joining(", "));
  }

  /**
   * This JVM and what it may use: {@code Java 17.0.15 (OpenJDK ...), 2 cores, max heap 6028 MiB}.
   */
  public static String jvm() {
    return "Java "
        + System.getProperty("java.version")
        + " ("
        + System.getProperty("java.vm.name")
        + "), "
        + Runtime.getRuntime().availableProcessors()
        + " cores, max heap "
        + Runtime.getRuntime().maxMemory() / (1 << 20)
        + " MiB";
  }

  /** The first three fields of /proc/loadavg, or "?" where there is none. */
  public static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException | RuntimeException e) {
      return "?";
    }
  }

  /**
   * Which Baton was measured: a CRC over the names and CRCs of the library's classes in the jar
   * this class was loaded from (not the command line's or the benchmarks'). Several people build
   * the core at once; two runs with the same fingerprint measured the same code.
   */
  public static String coreFingerprint() {
    try {
      File jar = new File(Bench.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      if (!jar.isFile()) {
        return "(classes directory, no fingerprint)";
      }
      try (JarFile jf = new JarFile(jar)) {
        List<ZipEntry> entries =
            jf.stream()
                .filter(e -> e.getName().startsWith("dev/baton/"))
                .filter(e -> !e.getName().startsWith("dev/baton/bench/"))
                .filter(e -> !e.getName().startsWith("dev/baton/cli/"))
                .filter(e -> !e.isDirectory())
                .sorted(Comparator.comparing(ZipEntry::getName))
                .collect(Collectors.toList());
        CRC32 crc = new CRC32();
        for (ZipEntry e : entries) {
          crc.update(e.getName().getBytes(StandardCharsets.UTF_8));
          crc.update(Long.toString(e.getCrc()).getBytes(StandardCharsets.UTF_8));
        }
        return String.format(
            Locale.ROOT,
            "baton-core classes %08x (%d files in %s)",
            crc.getValue(),
            entries.size(),
            jar.getName());
      }
    } catch (Exception e) {
      return "? (" + e + ")";
    }
  }

  /** The words, quoted for a POSIX shell where needed. */
  public static String shellWords(List<String> words) {
    return words.stream()
        .map(w -> w.matches("[A-Za-z0-9_./:=,@%+-]+") ? w : "'" + w.replace("'", "'\\''") + "'")
        .collect(Collectors.joining(" "));
  }
}
