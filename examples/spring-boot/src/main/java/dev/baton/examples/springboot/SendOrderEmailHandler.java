package dev.baton.examples.springboot;

import dev.baton.JobContext;
import dev.baton.JobHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Sends an order's confirmation email. A bean like any other: the starter registers it for {@link
 * SendOrderEmail} jobs. Here "sending" writes the email to {@code shop.sent_emails}, keyed by the
 * job's idempotency key, so a job run twice (delivery is at least once) sends one email; a real
 * mail API would take the same key. docs/spring-boot.md quotes the text between the docs markers.
 */
// docs:begin spring-boot
@Component
public class SendOrderEmailHandler implements JobHandler<SendOrderEmail> {
  private static final Logger log = LoggerFactory.getLogger(SendOrderEmailHandler.class);

  private static final String RECORD_EMAIL =
      """
      INSERT INTO shop.sent_emails (order_id, idempotency_key, recipient, subject)
      VALUES (?, ?, ?, ?)
      ON CONFLICT (idempotency_key) DO NOTHING
      """;

  private final JdbcTemplate jdbc;

  SendOrderEmailHandler(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  @Override
  public void work(JobContext context, SendOrderEmail email) {
    String subject = "Your order " + email.orderId() + " is confirmed";
    int sent =
        jdbc.update(
            RECORD_EMAIL, email.orderId(), context.idempotencyKey(), email.recipient(), subject);
    log.info(
        "{} (order_id={}, job_id={}, attempt={})",
        sent == 1 ? "sent confirmation email" : "confirmation email already sent",
        email.orderId(),
        context.jobId(),
        context.attempt());
  }
}
// docs:end spring-boot
