package dev.baton.examples.springboot;

import dev.baton.JobContext;
import dev.baton.JobHandler;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * Issues an order's invoice and completes its job in the same Spring transaction: the invoice row
 * and the job's completion commit together, or neither does, so an invoice is issued once however
 * often the job runs.
 *
 * <p>The invoice's reference to its order is checked at commit (a deferred constraint, as a JPA
 * flush at commit would be): an invoice for an order that no longer exists fails when the
 * transaction commits, after {@code completeIn}. The attempt fails with the commit's exception as
 * its recorded cause, and the job is retried like any failed attempt.
 */
@Component
public class IssueInvoiceHandler implements JobHandler<IssueInvoice> {
  private final JdbcTemplate jdbc;
  private final DataSource dataSource;

  IssueInvoiceHandler(JdbcTemplate jdbc, DataSource dataSource) {
    this.jdbc = jdbc;
    this.dataSource = dataSource;
  }

  @Override
  @Transactional
  public void work(JobContext context, IssueInvoice invoice) {
    jdbc.update(
        "INSERT INTO shop.invoices (order_id, total_cents) VALUES (?, ?)",
        invoice.orderId(),
        invoice.totalCents());
    // The connection of this method's transaction: the completion commits with the invoice.
    context.completeIn(DataSourceUtils.getConnection(dataSource));
  }
}
