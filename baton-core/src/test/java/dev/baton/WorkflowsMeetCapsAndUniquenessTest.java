package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.testing.Fixture;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A workflow or a batch is admitted through its queues' backlog caps like any enqueue, all or
 * nothing; and a step cannot be unique (a unique key would let a second workflow's step resolve to
 * another workflow's job), which is refused with a clear error instead of ignored.
 */
class WorkflowsMeetCapsAndUniquenessTest {

  record Step(String name) implements JobArgs {}

  private static final EnqueueOptions CAPPED = EnqueueOptions.builder().queue("capped").build();

  @Test
  void aWorkflowOverItsQueuesCapIsRefusedAndWritesNothing() {
    try (Fixture f = new Fixture()) {
      f.execute("INSERT INTO %s.queue (name, backlog_cap) VALUES ('capped', 2)");
      Baton baton =
          Baton.builder(f.dataSource()).config(f.config().allowUnknownKinds(true).build()).build();
      Workflow three =
          Workflow.builder()
              .step("a", new Step("a"), CAPPED)
              .step("b", new Step("b"), CAPPED, "a")
              .step("c", new Step("c"), CAPPED, "b")
              .build();

      assertThatThrownBy(() -> baton.enqueueWorkflow(three))
          .isInstanceOf(BacklogCapExceededException.class);
      assertThatThrownBy(
              () ->
                  baton.enqueueBatch(
                      List.of(
                          JobRequest.of(new Step("x"), CAPPED),
                          JobRequest.of(new Step("y"), CAPPED)),
                      JobRequest.of(new Step("done"), CAPPED)))
          .isInstanceOf(BacklogCapExceededException.class);
      assertThat(f.count("SELECT count(*) FROM %s.job")).isZero();

      Workflow two =
          Workflow.builder()
              .step("a", new Step("a"), CAPPED)
              .step("b", new Step("b"), CAPPED, "a")
              .build();
      baton.enqueueWorkflow(two);
      assertThat(f.count("SELECT count(*) FROM %s.job")).isEqualTo(2);
      baton.stop();
    }
  }

  @Test
  void aUniqueStepIsRefused() {
    try (Fixture f = new Fixture()) {
      Baton baton =
          Baton.builder(f.dataSource()).config(f.config().allowUnknownKinds(true).build()).build();
      Workflow wf =
          Workflow.builder()
              .step("a", new Step("a"))
              .step(
                  "b",
                  new Step("b"),
                  EnqueueOptions.builder().unique(UniqueOptions.byArgs().build()).build(),
                  "a")
              .build();

      assertThatThrownBy(() -> baton.enqueueWorkflow(wf))
          .isInstanceOf(InvalidJobException.class)
          .hasMessage(
              "cannot enqueue workflow (step=b): a job of a workflow or batch cannot be unique;"
                  + " enqueue unique jobs on their own");
      assertThat(f.count("SELECT count(*) FROM %s.job")).isZero();
      baton.stop();
    }
  }
}
