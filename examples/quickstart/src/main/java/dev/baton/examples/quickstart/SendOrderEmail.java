package dev.baton.examples.quickstart;

import dev.baton.JobArgs;

/**
 * The args of a "send order email" job: which order to confirm, and to whom. Stored as JSON in the
 * job row; the kind is {@code send_order_email}, from the class name.
 *
 * @param orderId the order, as committed in {@code quickstart.orders}
 * @param to the customer's address
 * @param totalCents the order total, for the email's subject
 */
public record SendOrderEmail(long orderId, String to, long totalCents) implements JobArgs {}
