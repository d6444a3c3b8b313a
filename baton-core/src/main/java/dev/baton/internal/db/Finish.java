package dev.baton.internal.db;

/**
 * One fenced finish of a running job, written by {@link JobStore#finishIfHeld}.
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
 */
public record Finish(
    long id,
    long fence,
    String state,
    Long delayMillis,
    String errorJson,
    int attemptDelta,
    String metadataPatchJson) {

  /** A plain completion. */
  public static Finish completed(long id, long fence) {
    return new Finish(id, fence, "completed", null, null, 0, null);
  }

  /** Whether this is a plain completion, which takes the cheaper statement. */
  public boolean isPlainCompletion() {
    return "completed".equals(state) && errorJson == null && metadataPatchJson == null;
  }
}
