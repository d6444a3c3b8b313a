package dev.baton.internal.db;

/**
 * One fenced finish of a running job, written by {@link HolderStore#finishIfHeld}. Made with the
 * factory named after the outcome ({@link #completed}, {@link #retryable}, {@link #discarded},
 * {@link #cancelled}, {@link #snoozed}, {@link #handedBack}); the canonical constructor is for
 * tests that write a finish no outcome makes.
 *
 * <p>Not public API.
 *
 * @param id the job
 * @param fence the holder's fence; the write matches only while it still holds the job
 * @param state the new state (completed, retryable, scheduled, available, cancelled, discarded)
 * @param delayMillis the new run-at time as milliseconds after the database's now, or null to keep
 *     it
 * @param errorJson an error entry (JSON object without {@code at}) to append, or null
 * @param attemptDelta added to {@code attempt}: 0, or -1 to give the attempt back
 * @param metadataPatchJson a JSON object merged into metadata, or null
 * @param releasesDependents the job has dependents (a workflow step or a batch member, as its claim
 *     read): a final finish releases them in the same transaction
 */
public record Finish(
    long id,
    long fence,
    String state,
    Long delayMillis,
    String errorJson,
    int attemptDelta,
    String metadataPatchJson,
    boolean releasesDependents) {

  /** A finish of a job without dependents. */
  public Finish(
      long id,
      long fence,
      String state,
      Long delayMillis,
      String errorJson,
      int attemptDelta,
      String metadataPatchJson) {
    this(id, fence, state, delayMillis, errorJson, attemptDelta, metadataPatchJson, false);
  }

  /** This finish of a job that has dependents: written with their release. */
  public Finish releasingDependents() {
    return new Finish(
        id, fence, state, delayMillis, errorJson, attemptDelta, metadataPatchJson, true);
  }

  /** Whether the job ends in this finish (completed, cancelled or discarded). */
  public boolean isFinal() {
    return "completed".equals(state) || "cancelled".equals(state) || "discarded".equals(state);
  }

  /** A plain completion. */
  public static Finish completed(long id, long fence) {
    return new Finish(id, fence, "completed", null, null, 0, null);
  }

  /** A failed attempt, run again {@code delayMillis} after the database's now. */
  public static Finish retryable(long id, long fence, long delayMillis, String errorJson) {
    return new Finish(id, fence, "retryable", delayMillis, errorJson, 0, null);
  }

  /** A failed attempt that ends the job (no attempt left, or the handler discarded it). */
  public static Finish discarded(long id, long fence, String errorJson) {
    return new Finish(id, fence, "discarded", null, errorJson, 0, null);
  }

  /** A cancellation, with the error entry that says why. */
  public static Finish cancelled(long id, long fence, String errorJson) {
    return new Finish(id, fence, "cancelled", null, errorJson, 0, null);
  }

  /**
   * A snooze: the attempt is given back and the job runs again {@code delayMillis} after the
   * database's now (available at once when zero, else scheduled), with {@code metadataPatchJson}
   * (the snooze count) merged into its metadata.
   */
  public static Finish snoozed(long id, long fence, long delayMillis, String metadataPatchJson) {
    return new Finish(
        id,
        fence,
        delayMillis == 0 ? "available" : "scheduled",
        delayMillis,
        null,
        -1,
        metadataPatchJson);
  }

  /** A job handed back unfinished (a stop): available now, its attempt given back. */
  public static Finish handedBack(long id, long fence) {
    return new Finish(id, fence, "available", 0L, null, -1, null);
  }

  /**
   * Whether this is a plain completion, which takes the cheaper statement (and may be folded into a
   * claim). A completion that releases dependents is not: it is written with their release.
   */
  public boolean isPlainCompletion() {
    return "completed".equals(state)
        && errorJson == null
        && metadataPatchJson == null
        && !releasesDependents;
  }
}
