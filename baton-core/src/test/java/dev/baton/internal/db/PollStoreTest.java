package dev.baton.internal.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testing.Fixture;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The poll's statement names exactly the queues a claim could take a job from: those with an
 * available job that are not paused; never a queue whose jobs are only scheduled, running or
 * finished, nor one the node does not ask about.
 */
class PollStoreTest {

  @Test
  void namesOnlyUnpausedQueuesWithAvailableJobs() {
    try (Fixture f = new Fixture()) {
      insert(f, "ready", "available");
      insert(f, "paused", "available");
      insert(f, "later", "scheduled");
      insert(f, "busy", "running");
      insert(f, "done", "completed");
      insert(f, "unasked", "available");
      insert(f, "limited", "available");
      f.execute("INSERT INTO %s.queue (name, paused_at, paused_by) VALUES ('paused', now(), 'x')");
      f.execute("INSERT INTO %s.queue (name) VALUES ('ready')");
      f.execute("INSERT INTO %s.queue (name, concurrency_limit) VALUES ('limited', 2)");
      insert(f, "keyed", "available");
      f.execute("INSERT INTO %s.queue (name, key_field, key_limit) VALUES ('keyed', 'k', 1)");
      PollStore store = new PollStore(SchemaName.of(f.schema()));

      assertThat(
              store.findQueuesWithAvailableJobs(
                  f.dataSource(),
                  List.of("ready", "paused", "later", "busy", "done", "empty", "limited", "keyed")))
          .containsExactlyInAnyOrderEntriesOf(
              java.util.Map.of(
                  "ready", HolderStore.ClaimMode.PLAIN,
                  "limited", HolderStore.ClaimMode.LIMITED,
                  "keyed", HolderStore.ClaimMode.KEYED));
      assertThat(store.findQueuesWithAvailableJobs(f.dataSource(), List.of())).isEmpty();
    }
  }

  private static void insert(Fixture f, String queue, String state) {
    f.execute(
        "INSERT INTO %s.job (queue, kind, args, state, scheduled_at, attempted_at, attempted_by,"
            + " lease_expires_at, deadline_at, fence, finalized_at) VALUES ('"
            + queue
            + "', 'k', '{}', '"
            + state
            + "', now(), now(), 'n', now(), now(), 1, "
            + (state.equals("completed") ? "now()" : "NULL")
            + ")");
  }
}
