package dev.baton.test.example;

// The example of docs/testing.md: the text between the docs markers below is quoted there
// verbatim, and DocSnippetsAreCompiledTest fails when the two differ.

// docs:begin testing
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.baton.Baton;
import dev.baton.EnqueueOptions;
import dev.baton.JobArgs;
import dev.baton.test.BatonExtension;
import dev.baton.test.HandlerHarness;
import dev.baton.test.JobOutcome;
import dev.baton.test.Outcome;
import dev.baton.test.TestBaton;
import dev.baton.test.TestJobContext;
import dev.baton.test.TestSchema;
import java.io.IOException;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(BatonExtension.class) // a fresh, migrated schema for this class
class OrderEmailTest {

  record SendEmail(long orderId, String to) implements JobArgs {}

  /** The code under test: places an order and enqueues its email in the caller's transaction. */
  static void placeOrder(Baton baton, Connection c, long orderId, String to) {
    // ... INSERT INTO orders ... on c, then:
    baton.enqueue(c, new SendEmail(orderId, to), EnqueueOptions.builder().queue("mail").build());
  }

  @Test
  void aRolledBackOrderLeavesNoEmail(TestSchema schema) throws Exception {
    Baton baton =
        Baton.builder(schema.dataSource())
            .config(schema.config().knownKinds("send_email").build())
            .build();
    TestBaton jobs = TestBaton.of(baton, schema.dataSource());
    try (Connection c = schema.dataSource().getConnection()) {
      c.setAutoCommit(false);
      placeOrder(baton, c, 42, "ada@example.com");
      // Seen on the transaction's own connection before it commits...
      jobs.assertEnqueued(c, SendEmail.class, email -> email.orderId() == 42);
      c.rollback();
    }
    // ...and gone with it.
    jobs.refuteEnqueued(SendEmail.class, email -> email.orderId() == 42);
  }

  @Test
  void theEmailIsRetriedAfterAFailureAndThenSent(TestSchema schema) throws Exception {
    List<String> sent = new ArrayList<>();
    Baton baton =
        Baton.builder(schema.dataSource())
            .config(schema.config().build())
            .handler(
                SendEmail.class,
                (ctx, email) -> {
                  if (ctx.attempt() == 1) {
                    throw new IOException("smtp timeout");
                  }
                  sent.add(email.to());
                })
            .build();
    TestBaton jobs = TestBaton.of(baton, schema.dataSource());
    try (Connection c = schema.dataSource().getConnection()) {
      placeOrder(baton, c, 7, "grace@example.com");
    }

    // drain runs the queue's due jobs on this thread, with the real handler.
    JobOutcome first = jobs.drain("mail").get(0);
    assertEquals(Outcome.RETRYABLE, first.outcome());
    assertEquals("smtp timeout", first.error().message());
    assertEquals(List.of(), jobs.drain("mail")); // the retry waits for its backoff

    // Time moves only when the test moves it.
    jobs.clock().advance(Duration.between(jobs.clock().instant(), first.nextRunAt()));
    assertEquals(Outcome.COMPLETED, jobs.drain("mail").get(0).outcome());
    assertEquals(List.of("grace@example.com"), sent);
  }

  @Test
  void theHandlerGivesUpOnItsLastAttempt() {
    // One handler, a context of your choosing, no database.
    TestJobContext lastAttempt = TestJobContext.builder(SendEmail.class).attempt(3, 3).build();
    Outcome outcome =
        HandlerHarness.run(
                (ctx, email) -> {
                  throw new IOException("mailbox full");
                },
                new SendEmail(9, "linus@example.com"),
                lastAttempt)
            .outcome();
    assertEquals(Outcome.DISCARDED, outcome);
  }
}
// docs:end testing
