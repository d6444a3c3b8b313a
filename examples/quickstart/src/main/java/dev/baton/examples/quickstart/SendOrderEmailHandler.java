package dev.baton.examples.quickstart;

import dev.baton.JobContext;
import dev.baton.JobHandler;
import dev.baton.inbox.Inbox;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;

/**
 * "Sends" an order email by recording it in {@code quickstart.email_outbox}, exactly once per job
 * however often Baton delivers it.
 *
 * <p>One transaction holds three writes: the inbox row for the job's idempotency key, the email
 * row, and the job's completion. They commit together or not at all, so a redelivered job finds its
 * key in the inbox and records nothing, and a holder that lost the job (a lower fence) cannot
 * commit anything.
 */
final class SendOrderEmailHandler implements JobHandler<SendOrderEmail> {

  private static final String RECORD_EMAIL =
      """
      INSERT INTO quickstart.email_outbox (order_id, recipient, subject, idempotency_key, fence)
      VALUES (?, ?, ?, ?, ?)
      """;

  private final DataSource dataSource;
  private final Inbox inbox;
  private final LongAdder duplicates = new LongAdder();

  SendOrderEmailHandler(DataSource dataSource, Inbox inbox) {
    this.dataSource = dataSource;
    this.inbox = inbox;
  }

  @Override
  public void work(JobContext ctx, SendOrderEmail email) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        switch (inbox.apply(c, ctx.idempotencyKey(), ctx.fence())) {
          case APPLY -> recordEmail(c, ctx, email);
          case DUPLICATE -> duplicates.increment(); // recorded by an earlier delivery
          case STALE -> {
            // A newer holder has this job; completeIn below throws LostBatonException.
          }
        }
        // Fence-checked: completes the job only if this attempt still holds it.
        ctx.completeIn(c);
        c.commit();
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    }
  }

  /** Deliveries whose key the inbox had seen before: nothing was recorded for them. */
  long duplicates() {
    return duplicates.sum();
  }

  private static void recordEmail(Connection c, JobContext ctx, SendOrderEmail email)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(RECORD_EMAIL)) {
      ps.setLong(1, email.orderId());
      ps.setString(2, email.to());
      ps.setString(
          3,
          String.format(
              "Your order #%d (%d.%02d EUR) is confirmed",
              email.orderId(), email.totalCents() / 100, email.totalCents() % 100));
      ps.setString(4, ctx.idempotencyKey());
      ps.setLong(5, ctx.fence());
      ps.executeUpdate();
    }
  }
}
