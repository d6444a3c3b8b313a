package dev.baton.examples.springboot;

import dev.baton.examples.springboot.OrderService.NewOrder;
import dev.baton.examples.springboot.OrderService.OrderView;
import dev.baton.examples.springboot.OrderService.PlacedOrder;
import java.net.URI;
import java.util.Map;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /orders} places an order ({@code {"customer", "email", "totalCents"}}) and answers
 * 201 with its id and its email job's id; {@code GET /orders/{id}} shows it. Bad input gets 400
 * with a message naming the field, what was expected and what was given.
 */
@RestController
public class OrderController {
  private final OrderService orders;

  OrderController(OrderService orders) {
    this.orders = orders;
  }

  /** Places an order. */
  @PostMapping("/orders")
  public ResponseEntity<PlacedOrder> place(@RequestBody NewOrder order) {
    check(order);
    PlacedOrder placed = orders.place(order);
    return ResponseEntity.created(URI.create("/orders/" + placed.orderId())).body(placed);
  }

  /** An order and whether its email was sent. */
  @GetMapping("/orders/{id}")
  public ResponseEntity<OrderView> find(@PathVariable("id") long id) {
    return ResponseEntity.of(orders.find(id));
  }

  @ExceptionHandler(BadOrderException.class)
  ResponseEntity<Map<String, String>> badOrder(BadOrderException e) {
    return ResponseEntity.badRequest().body(Map.of("error", e.getMessage()));
  }

  private static void check(NewOrder order) {
    if (order.customer() == null || order.customer().isBlank()) {
      throw new BadOrderException("customer", "a name", order.customer());
    }
    if (order.email() == null || !order.email().matches("[^@\\s]+@[^@\\s]+")) {
      throw new BadOrderException("email", "an address like ada@example.com", order.email());
    }
    if (order.totalCents() <= 0) {
      throw new BadOrderException("totalCents", "a positive number of cents", order.totalCents());
    }
  }

  /** An order with a missing or malformed field. */
  static final class BadOrderException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BadOrderException(String field, String expected, Object given) {
      super(
          "invalid order: "
              + field
              + " must be "
              + expected
              + ", got "
              + (given instanceof String ? "\"" + given + "\"" : String.valueOf(given)));
    }
  }
}
