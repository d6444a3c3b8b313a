/**
 * A Spring Boot shop on Baton's starter: {@link dev.baton.examples.springboot.OrderController}
 * takes orders over HTTP, {@link dev.baton.examples.springboot.OrderService} writes each order and
 * enqueues its confirmation email in one transaction, and {@link
 * dev.baton.examples.springboot.SendOrderEmailHandler} sends it.
 */
package dev.baton.examples.springboot;
