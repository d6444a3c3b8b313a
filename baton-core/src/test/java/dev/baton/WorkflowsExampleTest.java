package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.testing.Fixture;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The examples of docs/workflows.md, compiled and run. */
class WorkflowsExampleTest {

  record FetchOrders(String day) implements JobArgs {}

  record FetchRefunds(String day) implements JobArgs {}

  record Reconcile(String day) implements JobArgs {}

  record Charge(long orderId) implements JobArgs {}

  record ChargesDone(String label) implements JobArgs {}

  record Receipt(String id) {}

  @Test
  void theExamplesRun() throws Exception {
    try (Fixture f = new Fixture()) {
      Baton baton =
          f.start(
              f.config().queue("default", 4).build(),
              b ->
                  b.handler(FetchOrders.class, (ctx, a) -> ctx.recordOutput(Map.of("orders", 12)))
                      .handler(
                          FetchRefunds.class, (ctx, a) -> ctx.recordOutput(Map.of("refunds", 2)))
                      .handler(
                          Reconcile.class,
                          // docs:begin workflow-read
                          (ctx, a) -> {
                            JsonNode orders = ctx.dependencyOutput("orders");
                            JsonNode refunds = ctx.dependencyOutput("refunds");
                            ctx.recordOutput(
                                orders.path("orders").asInt() - refunds.path("refunds").asInt());
                          }
                          // docs:end workflow-read
                          )
                      .handler(
                          Charge.class,
                          // docs:begin workflow-steps
                          (ctx, a) -> {
                            Receipt receipt =
                                ctx.step("charge", Receipt.class, () -> charge(a.orderId()));
                            try (Connection c = f.dataSource().getConnection()) {
                              c.setAutoCommit(false);
                              ctx.stepIn(c, "record", Boolean.class, () -> record(c, receipt));
                              c.commit();
                            }
                            ctx.progress(1.0, "charged " + receipt.id());
                          }
                          // docs:end workflow-steps
                          )
                      .handler(
                          ChargesDone.class,
                          // docs:begin workflow-batch-callback
                          (ctx, a) -> {
                            Map<JobState, Long> counts = ctx.dependencyCounts();
                            long failed = counts.getOrDefault(JobState.DISCARDED, 0L);
                            ctx.logger().info("charges done, {} failed", failed);
                          }
                          // docs:end workflow-batch-callback
                          ));
      // docs:begin workflow-enqueue
      Workflow daily =
          Workflow.builder()
              .onDependencyFailure(DependencyFailure.CANCEL)
              .step("orders", new FetchOrders("2026-12-04"))
              .step("refunds", new FetchRefunds("2026-12-04"))
              .step("reconcile", new Reconcile("2026-12-04"), "orders", "refunds")
              .build();
      EnqueuedWorkflow wf = baton.enqueueWorkflow(daily);
      long reconcileId = wf.id("reconcile");
      // docs:end workflow-enqueue
      // docs:begin workflow-batch
      List<JobRequest> charges = new ArrayList<>();
      for (long orderId = 1; orderId <= 3; orderId++) {
        charges.add(JobRequest.of(new Charge(orderId)));
      }
      EnqueuedBatch batch = baton.enqueueBatch(charges, JobRequest.of(new ChargesDone("nightly")));
      // docs:end workflow-batch
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  f.job(reconcileId).state() == JobState.COMPLETED
                      && f.job(batch.callbackId()).state() == JobState.COMPLETED);
      assertThat(
              new dev.baton.admin.BatonAdmin(f.dataSource(), f.schema())
                  .workflow(reconcileId)
                  .orElseThrow()
                  .output()
                  .asInt())
          .isEqualTo(10);
    }
  }

  private static Receipt charge(long orderId) {
    return new Receipt("r-" + orderId);
  }

  private static boolean record(Connection c, Receipt receipt) {
    return receipt != null && c != null;
  }
}
