package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.admin.BatonAdmin;
import dev.baton.internal.db.ClaimedJob;
import dev.baton.internal.db.Finish;
import dev.baton.internal.db.HolderStore;
import dev.baton.internal.db.ReleaseStore;
import dev.baton.internal.db.SchemaName;
import dev.baton.internal.maintenance.Releaser;
import dev.baton.testing.Claims;
import dev.baton.testing.Fixture;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The releaser (a maintenance pass) applies the release that a dependency's finish did not: when an
 * operator cancelled the dependency, and when the dependency's holder had claimed it before the
 * dependent was enqueued (its claim said "no dependents", so its completion took the plain
 * statement).
 */
class ReleaserReleasesWhatAFinishDidNotTest {

  record Work(String name) implements JobArgs {}

  @Test
  void aDependencyCancelledByAnOperatorCancelsItsDependentAtTheNextPass() {
    try (Fixture f = new Fixture()) {
      EnqueuedWorkflow wf =
          f.reader()
              .enqueueWorkflow(
                  Workflow.builder()
                      .step("a", new Work("a"))
                      .step("b", new Work("b"), "a")
                      .build());
      new BatonAdmin(f.dataSource(), f.schema()).cancel(wf.id("a"));
      assertThat(f.job(wf.id("b")).state()).isEqualTo(JobState.PENDING);
      Releaser releaser =
          new Releaser(f.dataSource(), new ReleaseStore(SchemaName.of(f.schema())), 10);
      assertThat(releaser.runOnce(null)).isEqualTo(1);
      assertThat(f.job(wf.id("b")).state()).isEqualTo(JobState.CANCELLED);
      assertThat(releaser.runOnce(null)).as("a second pass finds nothing").isZero();
    }
  }

  @Test
  void aDependencyClaimedBeforeItsDependentWasEnqueuedReleasesItAtTheNextPass() {
    try (Fixture f = new Fixture()) {
      HolderStore store = new HolderStore(SchemaName.of(f.schema()));
      long first = f.reader().enqueue(new Work("first")).job().id();
      ClaimedJob held = store.claim(f.dataSource(), Claims.by("a", 1)).get(0);
      assertThat(held.hasDependents()).isFalse();
      long then =
          f.reader()
              .enqueueAfter(new long[] {first}, new Work("then"), EnqueueOptions.defaults())
              .id();
      // The holder completes as its claim told it: a plain completion, no release.
      assertThat(store.finishIfHeld(f.dataSource(), List.of(Finish.completed(first, held.fence()))))
          .containsExactly(held.fence());
      assertThat(f.job(then).state()).isEqualTo(JobState.PENDING);

      Releaser releaser =
          new Releaser(f.dataSource(), new ReleaseStore(SchemaName.of(f.schema())), 10);
      assertThat(releaser.runOnce(null)).isEqualTo(1);
      assertThat(f.job(then).state()).isEqualTo(JobState.AVAILABLE);
      // A later claim of a job with dependents learns it.
      long next = f.reader().enqueue(new Work("next")).job().id();
      f.reader().enqueueAfter(new long[] {next}, new Work("after"), EnqueueOptions.defaults());
      List<ClaimedJob> claimed = store.claim(f.dataSource(), Claims.by("a", 5));
      assertThat(claimed)
          .filteredOn(c -> c.id() == next)
          .singleElement()
          .extracting(ClaimedJob::hasDependents)
          .isEqualTo(true);
    }
  }
}
