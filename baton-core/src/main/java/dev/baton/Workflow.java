package dev.baton;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Jobs that wait for each other, enqueued together in one transaction ({@link
 * Baton#enqueueWorkflow(Workflow)}): named steps, each a job with its own args and options, and
 * edges saying which steps (and which existing jobs) a step waits for. A step with nothing to wait
 * for is available at once; the others are {@link JobState#PENDING} until their last dependency
 * completed, then available, released by the statement that completes it. A dependent reads its
 * dependencies' outputs by step name ({@link JobContext#dependencyOutput(String)}).
 *
 * <p>The builder rejects, at {@link Builder#build()}, a step that names an unknown step and a set
 * of steps that form a cycle; the enqueue rejects existing job ids that do not exist. Immutable and
 * thread-safe once built.
 */
public final class Workflow {

  /** The longest step name, in characters. */
  public static final int MAX_STEP_NAME = 128;

  /** One step: its name, its job, the steps it waits for, and the existing jobs it waits for. */
  record Step(String name, JobRequest request, List<String> after, long[] afterJobs) {}

  private final List<Step> steps;
  private final DependencyFailure onDependencyFailure;

  private Workflow(List<Step> steps, DependencyFailure onDependencyFailure) {
    this.steps = List.copyOf(steps);
    this.onDependencyFailure = onDependencyFailure;
  }

  /** A builder of a workflow. */
  public static Builder builder() {
    return new Builder();
  }

  /** The steps, in the order they were added (a topological order is not required). */
  List<Step> steps() {
    return steps;
  }

  /** What a discarded or cancelled dependency does to its dependents in this workflow. */
  public DependencyFailure onDependencyFailure() {
    return onDependencyFailure;
  }

  /** The step names, in the order they were added. */
  public List<String> stepNames() {
    return steps.stream().map(Step::name).toList();
  }

  /** Builds a {@link Workflow}; each method checks its input. Not thread-safe. */
  public static final class Builder {
    private final Map<String, Step> steps = new LinkedHashMap<>();
    private DependencyFailure onDependencyFailure = DependencyFailure.CANCEL;

    private Builder() {}

    /**
     * What a discarded or cancelled dependency does to its dependents; default {@link
     * DependencyFailure#CANCEL}.
     */
    public Builder onDependencyFailure(DependencyFailure policy) {
      this.onDependencyFailure = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /**
     * Adds step {@code name}, a job of {@code args} with default options, after steps {@code
     * after}.
     */
    public Builder step(String name, JobArgs args, String... after) {
      return step(name, args, EnqueueOptions.defaults(), after);
    }

    /**
     * Adds step {@code name}, a job of {@code args} with {@code options} (queue, priority, max
     * attempts, metadata, run-at: a step whose run-at is ahead when its dependencies complete is
     * scheduled), waiting for steps {@code after} (added before or after this one).
     *
     * @throws IllegalArgumentException for a blank or too long name, or one already used
     */
    public Builder step(String name, JobArgs args, EnqueueOptions options, String... after) {
      if (name == null || name.isBlank() || name.length() > MAX_STEP_NAME) {
        throw new IllegalArgumentException(
            "cannot add workflow step: a step name must be 1 to "
                + MAX_STEP_NAME
                + " characters, got "
                + (name == null ? "null" : "\"" + name + "\""));
      }
      if (steps.containsKey(name)) {
        throw new IllegalArgumentException(
            "cannot add workflow step \"" + name + "\": a step of that name was added already");
      }
      Objects.requireNonNull(after, "after");
      for (String a : after) {
        Objects.requireNonNull(a, "after");
      }
      steps.put(name, new Step(name, JobRequest.of(args, options), List.of(after), new long[0]));
      return this;
    }

    /**
     * Makes step {@code name} also wait for existing jobs {@code jobIds} (jobs enqueued before, in
     * or outside a workflow). An existing job that has already completed counts as done; one
     * already discarded or cancelled is handled by the workflow's {@link DependencyFailure} (under
     * {@code CANCEL} the enqueue is rejected).
     *
     * @throws IllegalArgumentException if no step {@code name} was added yet
     */
    public Builder afterJobs(String name, long... jobIds) {
      Step s = steps.get(name);
      if (s == null) {
        throw new IllegalArgumentException(
            "cannot add dependencies to workflow step \""
                + name
                + "\": no such step was added; add the step first");
      }
      long[] all = Arrays.copyOf(s.afterJobs(), s.afterJobs().length + jobIds.length);
      System.arraycopy(jobIds, 0, all, s.afterJobs().length, jobIds.length);
      steps.put(
          name, new Step(name, s.request(), s.after(), Arrays.stream(all).distinct().toArray()));
      return this;
    }

    /**
     * The workflow.
     *
     * @throws InvalidJobException if it has no step, a step waits for a step that was not added or
     *     for itself, or steps form a cycle
     */
    public Workflow build() {
      if (steps.isEmpty()) {
        throw new InvalidJobException("cannot build workflow: it has no step; add one with step()");
      }
      for (Step s : steps.values()) {
        for (String a : s.after()) {
          if (!steps.containsKey(a)) {
            throw new InvalidJobException(
                "cannot build workflow: step \""
                    + s.name()
                    + "\" waits for unknown step \""
                    + a
                    + "\"; the steps are "
                    + steps.keySet());
          }
        }
      }
      List<String> cycle = cycle();
      if (!cycle.isEmpty()) {
        throw new InvalidJobException(
            "cannot build workflow: steps "
                + String.join(" -> ", cycle)
                + " form a cycle; a workflow's steps must not wait for each other in a circle");
      }
      return new Workflow(new ArrayList<>(steps.values()), onDependencyFailure);
    }

    /**
     * A cycle of steps, the first step repeated at its end, or empty: Kahn's algorithm removes
     * every step whose waits are all removed; what remains lies on or behind a cycle, which a walk
     * along unremoved waits then finds.
     */
    private List<String> cycle() {
      Map<String, Integer> waiting = new HashMap<>();
      Map<String, List<String>> dependents = new HashMap<>();
      for (Step s : steps.values()) {
        waiting.put(s.name(), (int) s.after().stream().distinct().count());
        for (String a : s.after().stream().distinct().toList()) {
          dependents.computeIfAbsent(a, k -> new ArrayList<>()).add(s.name());
        }
      }
      Deque<String> ready = new ArrayDeque<>();
      waiting.forEach(
          (name, n) -> {
            if (n == 0) {
              ready.add(name);
            }
          });
      while (!ready.isEmpty()) {
        String done = ready.poll();
        waiting.remove(done);
        for (String d : dependents.getOrDefault(done, List.of())) {
          if (waiting.merge(d, -1, Integer::sum) == 0) {
            ready.add(d);
          }
        }
      }
      if (waiting.isEmpty()) {
        return List.of();
      }
      // Every remaining step waits for a remaining step: walk until a step repeats.
      List<String> path = new ArrayList<>();
      String at = steps.keySet().stream().filter(waiting::containsKey).findFirst().orElseThrow();
      while (!path.contains(at)) {
        path.add(at);
        at = steps.get(at).after().stream().filter(waiting::containsKey).findFirst().orElseThrow();
      }
      List<String> cycle = new ArrayList<>(path.subList(path.indexOf(at), path.size()));
      cycle.add(at);
      return cycle;
    }
  }
}
