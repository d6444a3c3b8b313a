package dev.baton.examples.springboot;

import dev.baton.EnqueueOptions;
import dev.baton.spring.boot.BatonTemplate;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Places orders and reads them back. docs/spring-boot.md quotes the text between the docs markers.
 */
// docs:begin spring-boot
@Service
public class OrderService {
  private static final EnqueueOptions EMAIL_QUEUE =
      EnqueueOptions.builder().queue("email").maxAttempts(10).build();
  private static final EnqueueOptions INVOICE_QUEUE =
      EnqueueOptions.builder().queue("invoices").build();

  private final JdbcTemplate jdbc;
  private final BatonTemplate baton;

  OrderService(JdbcTemplate jdbc, BatonTemplate baton) {
    this.jdbc = jdbc;
    this.baton = baton;
  }

  // docs:end spring-boot
  /**
   * Writes the order and enqueues its confirmation email and its invoice in one transaction: all
   * commit, or none does, so no email goes out for an order that was rolled back and no order lacks
   * its email or invoice.
   */
  // docs:begin spring-boot
  @Transactional
  public PlacedOrder place(NewOrder order) {
    long id =
        jdbc.queryForObject(
            "INSERT INTO shop.orders (customer, email, total_cents) VALUES (?, ?, ?) RETURNING id",
            Long.class,
            order.customer(),
            order.email(),
            order.totalCents());
    long jobId =
        baton.enqueue(new SendOrderEmail(id, order.email(), order.totalCents()), EMAIL_QUEUE).id();
    baton.enqueue(new IssueInvoice(id, order.totalCents()), INVOICE_QUEUE);
    return new PlacedOrder(id, jobId);
  }

  // docs:end spring-boot

  /** The order {@code id} and whether its email was sent. */
  public Optional<OrderView> find(long id) {
    List<OrderView> rows =
        jdbc.query(
            """
            SELECT o.id, o.customer, o.email, o.total_cents,
                   EXISTS (SELECT 1 FROM shop.sent_emails e WHERE e.order_id = o.id) AS emailed
            FROM shop.orders o WHERE o.id = ?
            """,
            (rs, n) ->
                new OrderView(
                    rs.getLong(1),
                    rs.getString(2),
                    rs.getString(3),
                    rs.getLong(4),
                    rs.getBoolean(5)),
            id);
    return rows.stream().findFirst();
  }

  /** An order as posted. */
  public record NewOrder(String customer, String email, long totalCents) {}

  /** A placed order and the id of its email job. */
  public record PlacedOrder(long orderId, long emailJobId) {}

  /** An order as stored, and whether its confirmation email was sent. */
  public record OrderView(
      long id, String customer, String email, long totalCents, boolean emailed) {}
  // docs:begin spring-boot
}
// docs:end spring-boot
