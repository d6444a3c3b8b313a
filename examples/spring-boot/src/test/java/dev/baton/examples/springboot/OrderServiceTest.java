package dev.baton.examples.springboot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.EnqueueOptions;
import dev.baton.examples.springboot.OrderService.NewOrder;
import dev.baton.examples.springboot.OrderService.PlacedOrder;
import dev.baton.test.JobOutcome;
import dev.baton.test.Outcome;
import dev.baton.test.TestBaton;
import dev.baton.test.TestDatabase;
import dev.baton.test.TestSchema;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The order service with baton-test, as an application tests it: the workers stay stopped ({@code
 * baton.enabled=false}), so the test runs each queue's jobs on its own thread with {@link
 * TestBaton#drain}, through the handler beans and their Spring transactions. The database is
 * baton-test's: {@code BATON_TEST_DATABASE_URL} or an embedded PostgreSQL, with a fresh, migrated
 * schema for this class.
 */
@SpringBootTest(properties = "baton.enabled=false")
class OrderServiceTest {
  private static final TestDatabase DB = TestDatabase.get();
  private static final TestSchema SCHEMA = DB.newSchema();

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    registry.add("spring.datasource.url", DB::jdbcUrl);
    registry.add("baton.schema", SCHEMA::name);
  }

  @Autowired OrderService orders;
  @Autowired Baton baton;
  @Autowired DataSource dataSource;
  @Autowired JdbcTemplate jdbc;

  @Test
  void aPlacedOrderGetsItsEmailAndItsInvoiceOnce() {
    TestBaton jobs = TestBaton.of(baton, dataSource);

    PlacedOrder placed = orders.place(new NewOrder("Ada", "ada@example.com", 4200));
    long email =
        jobs.assertEnqueued(SendOrderEmail.class, e -> e.orderId() == placed.orderId()).id();
    long invoice =
        jobs.assertEnqueued(IssueInvoice.class, i -> i.orderId() == placed.orderId()).id();

    // The schema is this class's; other tests' jobs may run in the same drain.
    assertThat(jobs.drain("email"))
        .filteredOn(run -> run.id() == email)
        .extracting(JobOutcome::outcome)
        .containsExactly(Outcome.COMPLETED);
    assertThat(jobs.drain("invoices"))
        .filteredOn(run -> run.id() == invoice)
        .extracting(JobOutcome::outcome)
        .containsExactly(Outcome.COMPLETED);
    assertThat(
            jdbc.queryForObject(
                "SELECT count(*) FROM shop.invoices WHERE order_id = ?",
                Long.class,
                placed.orderId()))
        .isEqualTo(1);
  }

  @Test
  void anInvoiceWhoseCommitFailsAfterCompleteInRecordsTheCommitsException() {
    TestBaton jobs = TestBaton.of(baton, dataSource);
    // An invoice for an order that does not exist: the deferred reference fails at commit.
    long invoice =
        baton
            .enqueue(new IssueInvoice(-42, 100), EnqueueOptions.builder().queue("invoices").build())
            .id();

    List<JobOutcome> runs =
        jobs.drain("invoices").stream().filter(run -> run.id() == invoice).toList();

    assertThat(runs).extracting(JobOutcome::outcome).containsExactly(Outcome.RETRYABLE);
    assertThat(
            jdbc.queryForObject(
                "SELECT count(*) FROM shop.invoices WHERE order_id = -42", Long.class))
        .isZero();
    // The attempt's recorded cause is the commit's own exception, with its stack trace. (Needs the
    // executor to record a failed commit after completeIn: issue 31, item 1.)
    assertThat(runs.get(0).error().message()).contains("violates foreign key constraint");
    assertThat(runs.get(0).error().trace()).contains("IssueInvoiceHandler");
  }
}
