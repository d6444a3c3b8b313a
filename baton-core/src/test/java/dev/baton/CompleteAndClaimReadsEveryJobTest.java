package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.baton.internal.db.ClaimedJob;
import dev.baton.internal.db.Finish;
import dev.baton.internal.db.HolderStore;
import dev.baton.internal.db.SchemaName;
import dev.baton.testing.Claims;
import dev.baton.testing.Fixture;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The hot path's statement completes a batch and claims the next one, and answers with one row of
 * arrays (the completions' fences, then each claimed column): every claimed job must come back with
 * its own values, none shifted to another job, and every completion with its fence.
 */
class CompleteAndClaimReadsEveryJobTest {

  record Work(int n) implements JobArgs {}

  @ParameterizedTest
  @EnumSource(HolderStore.CompletedRows.class)
  void everyClaimedJobComesBackWithItsOwnValuesAndEveryCompletionWithItsFence(
      HolderStore.CompletedRows completed) {
    try (Fixture f = new Fixture()) {
      HolderStore store = new HolderStore(SchemaName.of(f.schema()), completed);
      for (int n = 0; n < 30; n++) {
        EnqueueOptions.Builder o = EnqueueOptions.builder().maxAttempts(3 + n);
        if (n % 3 == 0) {
          o.idempotencyKey("key-" + n);
        }
        f.reader().enqueue(new Work(n), o.build());
      }
      List<ClaimedJob> first = store.claim(f.dataSource(), Claims.by("a", 10));
      assertThat(first).hasSize(10);
      List<Finish> done = new ArrayList<>();
      for (ClaimedJob j : first) {
        done.add(Finish.completed(j.id(), j.fence()));
      }

      HolderStore.CompleteAndClaim r =
          store.completeAndClaim(f.dataSource(), done, Claims.by("a", 50));

      assertThat(r.completed())
          .containsExactlyInAnyOrderElementsOf(
              first.stream().map(ClaimedJob::fence).collect(Collectors.toSet()));
      assertThat(r.claimed()).hasSize(20);
      Set<Long> firstIds = first.stream().map(ClaimedJob::id).collect(Collectors.toSet());
      for (ClaimedJob j : r.claimed()) {
        assertThat(firstIds).doesNotContain(j.id());
        Job stored = f.job(j.id());
        int n = stored.args().get("n").asInt();
        assertThat(j.args()).as("args of job %d", j.id()).isEqualTo("{\"n\": " + n + "}");
        assertThat(j.queue()).isEqualTo(stored.queue());
        assertThat(j.kind()).isEqualTo(stored.kind());
        assertThat(j.attempt()).isEqualTo(1);
        assertThat(j.maxAttempts()).as("max attempts of job %d", j.id()).isEqualTo(3 + n);
        assertThat(j.fence()).as("fence of job %d", j.id()).isEqualTo(stored.fence());
        assertThat(j.idempotencyKey()).isEqualTo(n % 3 == 0 ? "key-" + n : null);
        assertThat(j.metadata()).isEqualTo("{}");
        assertThat(j.deadlineAt()).isCloseTo(stored.deadlineAt(), within(1, ChronoUnit.MILLIS));
        assertThat(j.cancelRequested()).isFalse();
        assertThat(j.dueForMicros()).isNotNegative();
      }

      // Completions with nothing left to claim: the claimed arrays are empty (NULL), the fences
      // still come back.
      List<Finish> rest = new ArrayList<>();
      for (ClaimedJob j : r.claimed()) {
        rest.add(Finish.completed(j.id(), j.fence()));
      }
      HolderStore.CompleteAndClaim last =
          store.completeAndClaim(f.dataSource(), rest, Claims.by("a", 50));
      assertThat(last.claimed()).isEmpty();
      assertThat(last.completed()).hasSize(20);

      // Nothing to complete and nothing to claim.
      HolderStore.CompleteAndClaim none =
          store.completeAndClaim(f.dataSource(), List.of(), Claims.by("a", 50));
      assertThat(none.claimed()).isEmpty();
      assertThat(none.completed()).isEmpty();
    }
  }
}
