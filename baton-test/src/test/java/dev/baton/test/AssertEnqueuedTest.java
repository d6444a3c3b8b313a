package dev.baton.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.EnqueueOptions;
import dev.baton.Job;
import dev.baton.JobArgs;
import java.sql.Connection;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Assertions on enqueued jobs, each inside a transaction the test rolls back: what the caller's
 * uncommitted transaction enqueued is seen on its connection and nowhere else.
 */
@ExtendWith(BatonExtension.class)
class AssertEnqueuedTest {

  record SendReceipt(long orderId, String to) implements JobArgs {}

  record ShipOrder(long orderId) implements JobArgs {}

  private Baton baton;
  private TestBaton jobs;
  private Connection tx;

  @BeforeEach
  void openTransaction(TestSchema schema) throws Exception {
    baton =
        Baton.builder(schema.dataSource())
            .config(schema.config().knownKinds("send_receipt", "ship_order").build())
            .build();
    jobs = TestBaton.of(baton, schema.dataSource());
    tx = schema.dataSource().getConnection();
    tx.setAutoCommit(false);
  }

  @AfterEach
  void rollBack() throws Exception {
    tx.rollback();
    tx.close();
  }

  @Test
  void seesTheJobsOfTheCallersUncommittedTransactionOnItsConnectionOnly() {
    baton.enqueue(tx, new SendReceipt(42, "a@example.com"));

    Job job = jobs.assertEnqueued(tx, SendReceipt.class, r -> r.orderId() == 42);
    assertThat(jobs.args(job, SendReceipt.class).to()).isEqualTo("a@example.com");
    // Not committed: invisible to any other session.
    assertThatThrownBy(() -> jobs.assertEnqueued(SendReceipt.class, r -> r.orderId() == 42))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("expected a job of kind send_receipt")
        .hasMessageContaining("found none");
    jobs.refuteEnqueued(SendReceipt.class);
  }

  @Test
  void failsWhenNoJobOfTheKindMatchesAndNamesTheJobsThatDoNot() {
    baton.enqueue(tx, new SendReceipt(1, "one@example.com"));

    assertThatThrownBy(() -> jobs.assertEnqueued(tx, SendReceipt.class, r -> r.orderId() == 2))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("none of its 1 jobs matches")
        .hasMessageContaining("one@example.com");
    assertThatThrownBy(() -> jobs.assertEnqueued(tx, ShipOrder.class, s -> true))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("kind ship_order")
        .hasMessageContaining("found none");
  }

  @Test
  void matchesOnWhatTheOptionsMadeOfTheJob() {
    baton.enqueue(
        tx,
        new ShipOrder(7),
        EnqueueOptions.builder()
            .queue("shipping")
            .priority(3)
            .idempotencyKey("ship-7")
            .metadata("tenant", "acme")
            .build());

    jobs.assertEnqueued(
        tx,
        ShipOrder.class,
        (s, job) ->
            s.orderId() == 7
                && job.queue().equals("shipping")
                && job.priority() == 3
                && "ship-7".equals(job.idempotencyKey())
                && job.metadata().path("tenant").asText().equals("acme"));
    assertThatThrownBy(
            () -> jobs.assertEnqueued(tx, ShipOrder.class, (s, job) -> job.priority() == 0))
        .isInstanceOf(AssertionError.class);
    jobs.assertEnqueued(tx, "ship_order", job -> job.queue().equals("shipping"));
  }

  @Test
  void refuteFailsWhenAJobMatchesAndPassesOtherwise() {
    baton.enqueue(tx, new SendReceipt(5, "five@example.com"));

    jobs.refuteEnqueued(tx, SendReceipt.class, r -> r.orderId() == 6);
    jobs.refuteEnqueued(tx, ShipOrder.class);
    assertThatThrownBy(() -> jobs.refuteEnqueued(tx, SendReceipt.class, r -> r.orderId() == 5))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("expected no job of kind send_receipt")
        .hasMessageContaining("five@example.com");
    assertThatThrownBy(() -> jobs.refuteEnqueued(tx, SendReceipt.class))
        .isInstanceOf(AssertionError.class);
  }

  @Test
  void listsTheJobsOfAKindNewestFirst() {
    long first = baton.enqueue(tx, new SendReceipt(1, "x@example.com")).id();
    long second = baton.enqueue(tx, new SendReceipt(2, "y@example.com")).id();
    baton.enqueue(tx, new ShipOrder(1));

    List<Job> receipts = jobs.enqueued(tx, SendReceipt.class);
    assertThat(receipts).extracting(Job::id).containsExactly(second, first);
    assertThat(jobs.enqueued(tx, "ship_order")).hasSize(1);
  }
}
