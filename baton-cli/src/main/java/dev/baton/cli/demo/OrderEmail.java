package dev.baton.cli.demo;

import dev.baton.JobArgs;
import dev.baton.JobKind;

/**
 * The args of the demo's one kind of job: send the confirmation email of an order.
 *
 * @param orderId the order
 * @param to the customer's address
 */
@JobKind(OrderEmail.KIND)
public record OrderEmail(long orderId, String to) implements JobArgs {
  /** The kind name, as stored. */
  public static final String KIND = "send_order_email";

  /** The idempotency key of an order's confirmation email: one email per order, ever. */
  static String idempotencyKey(long orderId) {
    return "order-" + orderId + "-confirmation";
  }
}
