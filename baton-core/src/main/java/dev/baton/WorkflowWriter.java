package dev.baton;

import dev.baton.internal.db.EnqueueStore;
import dev.baton.internal.db.WorkflowStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Writes jobs that wait for each other (a workflow's steps, a batch and its callback) in one
 * transaction: locks the existing jobs they wait for, rejects unknown ones, inserts the jobs (the
 * waiting ones pending, with their count) and the edges, and marks the existing dependencies so
 * that their finish releases the new jobs. Apart from {@link Baton} so that the client's file holds
 * its API, not this.
 */
final class WorkflowWriter {

  /** One job to write: its prepared row, its name (or null), and what it waits for. */
  record Node(EnqueueStore.NewJob job, String name, List<Integer> after, long[] afterJobs) {}

  private final WorkflowStore store;
  private final EnqueueStore admission;

  /** Writes with {@code store}, admitting jobs through backlog caps as {@code admission} does. */
  WorkflowWriter(WorkflowStore store, EnqueueStore admission) {
    this.store = store;
    this.admission = admission;
  }

  /**
   * Writes {@code nodes} on {@code c} (in its transaction); {@code after} indexes into {@code
   * nodes}. Returns the ids, in order. {@code what} starts each error message.
   */
  long[] write(Connection c, List<Node> nodes, DependencyFailure policy, String what)
      throws SQLException {
    for (Node n : nodes) {
      if (n.job().unique() != null) {
        throw new InvalidJobException(
            what
                + (n.name() == null ? "" : " (step=" + n.name() + ")")
                + ": a job of a workflow or batch cannot be unique; enqueue unique jobs on their own");
      }
    }
    // The caps of the jobs' queues, as every enqueue: before anything is written.
    admission.admitAll(c, nodes.stream().map(Node::job).toList());
    Set<Long> external = new TreeSet<>();
    for (Node n : nodes) {
      for (long id : n.afterJobs()) {
        external.add(id);
      }
    }
    Map<Long, WorkflowStore.Existing> found =
        store.lockDependencies(c, external.stream().mapToLong(Long::longValue).toArray());
    if (found.size() < external.size()) {
      Set<Long> unknown = new LinkedHashSet<>(external);
      unknown.removeAll(found.keySet());
      throw new InvalidJobException(
          what
              + " for jobs "
              + unknown
              + ": they do not exist (never enqueued, or cleaned after their retention); wait"
              + " only for jobs that exist");
    }
    int count = nodes.size();
    boolean[] hasDependents = new boolean[count];
    for (Node n : nodes) {
      for (int a : n.after()) {
        hasDependents[a] = true;
      }
    }
    List<WorkflowStore.WaitingJob> rows = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      Node n = nodes.get(i);
      Integer waiting = null;
      if (!n.after().isEmpty() || n.afterJobs().length > 0) {
        int w = (int) n.after().stream().distinct().count();
        for (long id : n.afterJobs()) {
          JobState s = JobState.fromDb(found.get(id).state());
          if (s == JobState.COMPLETED) {
            continue;
          }
          if (s.isFinal() && policy == DependencyFailure.CANCEL) {
            throw new InvalidJobException(
                what
                    + " for jobs ["
                    + id
                    + "]: the job is "
                    + s.dbName()
                    + " and the workflow cancels the dependents of a failed dependency; pass"
                    + " DependencyFailure.RUN or HOLD, or do not wait for it");
          }
          if (!s.isFinal() || policy == DependencyFailure.HOLD) {
            w++;
          }
        }
        waiting = w;
      }
      rows.add(new WorkflowStore.WaitingJob(n.job(), waiting, hasDependents[i]));
    }
    long[] ids = store.insertJobs(c, rows);
    List<WorkflowStore.Edge> edges = new ArrayList<>();
    Set<Long> marked = new TreeSet<>();
    for (int i = 0; i < count; i++) {
      Node n = nodes.get(i);
      for (int a : new LinkedHashSet<>(n.after())) {
        edges.add(
            new WorkflowStore.Edge(
                ids[i], ids[a], nodes.get(a).name(), policy.dbName(), null, null));
      }
      for (long id : n.afterJobs()) {
        WorkflowStore.Existing e = found.get(id);
        boolean done = JobState.fromDb(e.state()).isFinal();
        edges.add(
            new WorkflowStore.Edge(
                ids[i],
                id,
                null,
                policy.dbName(),
                done ? e.state() : null,
                done && "completed".equals(e.state()) ? e.output() : null));
        if (!done) {
          marked.add(id);
        }
      }
    }
    store.insertEdges(c, edges, marked.stream().mapToLong(Long::longValue).toArray());
    return ids;
  }
}
