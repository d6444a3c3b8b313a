/**
 * A Spring Boot shop on Baton's starter: {@link dev.baton.examples.springboot.OrderController}
 * takes orders over HTTP, {@link dev.baton.examples.springboot.OrderService} writes each order and
 * enqueues its confirmation email and its invoice in one transaction, {@link
 * dev.baton.examples.springboot.SendOrderEmailHandler} sends the email, and {@link
 * dev.baton.examples.springboot.IssueInvoiceHandler} issues the invoice and completes its job in
 * the same Spring transaction. Its tests: {@code ShopSmokeTest} over HTTP with the workers started,
 * {@code OrderServiceTest} with baton-test, draining the queues by hand.
 */
package dev.baton.examples.springboot;
