package dev.baton.admin;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.Dependency;
import dev.baton.DependencyFailure;
import dev.baton.JobState;
import java.time.Instant;
import java.util.List;

/**
 * What a job records beyond its row's usual columns (schema version 10): the jobs it waits for and
 * the jobs that wait for it (a workflow's edges, a batch's members and callback), its output, its
 * durable steps and its latest progress report. Read by {@link BatonAdmin#workflow(long)}, shown by
 * {@code baton jobs show} and the dashboard.
 *
 * @param dependencies the jobs this job waits for, by id
 * @param dependents the jobs that wait for this one, by id
 * @param output the output the job recorded, or null
 * @param steps the durable steps it recorded, oldest first
 * @param progress its latest progress report, or null
 */
public record JobWorkflow(
    List<Dependency> dependencies,
    List<Dependent> dependents,
    JsonNode output,
    List<StepRecord> steps,
    Progress progress) {

  /** Copies the lists. */
  public JobWorkflow {
    dependencies = List.copyOf(dependencies);
    dependents = List.copyOf(dependents);
    steps = List.copyOf(steps);
  }

  /**
   * A job that waits for this one.
   *
   * @param jobId its id
   * @param name this job's step name in their workflow, or null
   * @param onFailure what this job failing does to it
   * @param state its state now; null when its row is gone (cleaned)
   */
  public record Dependent(long jobId, String name, DependencyFailure onFailure, JobState state) {}

  /**
   * A durable step the job recorded ({@link dev.baton.JobContext#step}).
   *
   * @param name the step's name
   * @param attempt the attempt that recorded it
   * @param at when it was recorded (database clock)
   * @param result its recorded result
   */
  public record StepRecord(String name, int attempt, Instant at, JsonNode result) {}

  /**
   * A progress report ({@link dev.baton.JobContext#progress}).
   *
   * @param fraction done, 0 to 1
   * @param message the message, or null
   * @param at when it was written (database clock)
   */
  public record Progress(double fraction, String message, Instant at) {}
}
