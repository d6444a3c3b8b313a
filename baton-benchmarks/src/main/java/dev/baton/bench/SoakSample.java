package dev.baton.bench;

import java.util.Locale;

/**
 * One row of the soak benchmark: what happened in one sample interval and the state of the job
 * table at its end. Counts of the interval ({@code enqueued}, {@code completed}) are exact and come
 * from the clients; the gauges come from one query on the benchmark's own connection, taken just
 * after the counts were read.
 *
 * @param phase {@link Phase#WARM_UP} before the steady part, {@link Phase#STEADY} in it, {@link
 *     Phase#STOP} for the last row, which covers the stop of the producer and of the worker
 * @param elapsedS seconds since the producer started, when the counts were read
 * @param intervalS seconds since the previous row's counts were read (the first row: since start)
 * @param enqueued jobs whose {@code enqueueMany} returned in the interval
 * @param completed completions the worker client wrote in the interval ({@code
 *     Counters.completed()})
 * @param behind jobs the producer owed for more than one tick at the end of the interval (rate ×
 *     time since start, minus jobs enqueued, less the tick under way); 0 while it keeps up
 * @param available jobs waiting to be claimed (the queue depth), counted exactly
 * @param running jobs in state {@code running}, counted exactly: handlers under way and the jobs
 *     the worker's producer claimed ahead into its buffer
 * @param waiting jobs scheduled or retryable, counted exactly
 * @param completedKept completed jobs still in the table (within the retention, or not yet cleaned)
 * @param failedKept cancelled and discarded jobs in the table
 * @param deleted rows deleted from the job table since it was created ({@code n_tup_del}); the
 *     cleaner is the only deleter here. Cumulative, from {@code pg_stat_user_tables}
 * @param liveTuples {@code n_live_tup}, the server's estimate of live rows
 * @param deadTuples {@code n_dead_tup}, the server's estimate of dead rows not yet vacuumed
 * @param heapBytes {@code pg_relation_size} of the job table (main fork)
 * @param indexBytes {@code pg_indexes_size} of the job table: all its indexes
 * @param toastBytes {@code pg_total_relation_size} of its TOAST table (with the TOAST index)
 * @param totalBytes {@code pg_total_relation_size} of the job table: heap, free space and
 *     visibility maps, TOAST and indexes
 * @param autovacuumCount {@code autovacuum_count}: autovacuum runs on the job table so far
 * @param autoanalyzeCount {@code autoanalyze_count}: autoanalyze runs on the job table so far
 */
record SoakSample(
    Phase phase,
    double elapsedS,
    double intervalS,
    long enqueued,
    long completed,
    long behind,
    long available,
    long running,
    long waiting,
    long completedKept,
    long failedKept,
    long deleted,
    long liveTuples,
    long deadTuples,
    long heapBytes,
    long indexBytes,
    long toastBytes,
    long totalBytes,
    long autovacuumCount,
    long autoanalyzeCount) {

  /** Where a row belongs. */
  enum Phase {
    /** Before the retention plus one clean interval: the table is still filling up. */
    WARM_UP("warm-up"),
    /** From the retention plus one clean interval on: the part the summary is computed over. */
    STEADY("steady"),
    /** After the last regular row: the producer and the worker stopping. */
    STOP("stop");

    private final String label;

    Phase(String label) {
      this.label = label;
    }

    /** The word in the table and the CSV. */
    String label() {
      return label;
    }
  }

  /** The header line of the CSV: one column per component, plus the two rates. */
  static final String CSV_HEADER =
      "phase,elapsed_s,interval_s,enqueued,enqueued_per_s,completed,completed_per_s,"
          + "producer_behind,available,running,waiting,completed_kept,failed_kept,n_tup_del,"
          + "n_live_tup,n_dead_tup,heap_bytes,index_bytes,toast_bytes,total_bytes,"
          + "autovacuum_count,autoanalyze_count";

  /** The header of the printed table; {@link #tableRow()} lines up under it. */
  static final String TABLE_HEADER =
      String.format(
          Locale.ROOT,
          "%8s %-7s %7s %7s %6s %7s %5s %9s %10s %10s %9s %8s %8s %8s %8s %4s %4s",
          "elapsed",
          "phase",
          "enq/s",
          "done/s",
          "behind",
          "avail",
          "run",
          "kept",
          "deleted",
          "n_live",
          "n_dead",
          "heap MiB",
          "idx MiB",
          "toastMiB",
          "totalMiB",
          "av",
          "aa");

  /** Jobs enqueued per second in the interval. */
  double enqueuedPerSecond() {
    return intervalS > 0 ? enqueued / intervalS : 0;
  }

  /** Jobs completed per second in the interval. */
  double completedPerSecond() {
    return intervalS > 0 ? completed / intervalS : 0;
  }

  /** The row of the printed table. */
  String tableRow() {
    return String.format(
        Locale.ROOT,
        "%6.0f s %-7s %7.0f %7.0f %6d %7d %5d %9d %10d %10d %9d %8.1f %8.1f %8.1f %8.1f %4d %4d",
        elapsedS,
        phase.label(),
        enqueuedPerSecond(),
        completedPerSecond(),
        behind,
        available,
        running,
        completedKept,
        deleted,
        liveTuples,
        deadTuples,
        mib(heapBytes),
        mib(indexBytes),
        mib(toastBytes),
        mib(totalBytes),
        autovacuumCount,
        autoanalyzeCount);
  }

  /** The line of the CSV, in {@link #CSV_HEADER}'s order. */
  String csvRow() {
    return String.format(
        Locale.ROOT,
        "%s,%.3f,%.3f,%d,%.1f,%d,%.1f,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d",
        phase.label(),
        elapsedS,
        intervalS,
        enqueued,
        enqueuedPerSecond(),
        completed,
        completedPerSecond(),
        behind,
        available,
        running,
        waiting,
        completedKept,
        failedKept,
        deleted,
        liveTuples,
        deadTuples,
        heapBytes,
        indexBytes,
        toastBytes,
        totalBytes,
        autovacuumCount,
        autoanalyzeCount);
  }

  static double mib(long bytes) {
    return bytes / 1048576.0;
  }
}
