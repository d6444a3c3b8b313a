package dev.baton;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A job another job waits for, as the waiting job's context ({@link JobContext#dependencies()}) and
 * the admin API see it.
 *
 * @param jobId the dependency's id
 * @param name its step name in the workflow, or null (a plain dependency, a batch member)
 * @param state its state: final as its finish recorded it, else its state now
 * @param output the output it recorded ({@link JobContext#recordOutput}) when it completed, or null
 */
public record Dependency(long jobId, String name, JobState state, JsonNode output) {}
