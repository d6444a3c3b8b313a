package dev.baton;

import java.util.Map;

/**
 * The jobs a workflow enqueued, by step name.
 *
 * @param ids each step's job id, by step name, in the order the steps were added
 */
public record EnqueuedWorkflow(Map<String, Long> ids) {

  /** Copies {@code ids}. */
  public EnqueuedWorkflow {
    ids = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(ids));
  }

  /**
   * The job id of step {@code name}.
   *
   * @throws IllegalArgumentException if the workflow has no such step
   */
  public long id(String name) {
    Long id = ids.get(name);
    if (id == null) {
      throw new IllegalArgumentException(
          "no step \"" + name + "\" in this workflow; its steps are " + ids.keySet());
    }
    return id;
  }
}
