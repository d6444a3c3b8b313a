package dev.baton.spring.boot.shop;

import dev.baton.spring.boot.BatonTemplate;
import jakarta.annotation.PostConstruct;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Places orders: the order row and its confirmation job in one transaction. */
@Service
public class OrderService {
  private final JdbcTemplate jdbc;
  private final BatonTemplate baton;
  private final String table;

  OrderService(JdbcTemplate jdbc, BatonTemplate baton, @Value("${baton.schema}") String schema) {
    this.jdbc = jdbc;
    this.baton = baton;
    this.table = schema + "_shop.orders";
  }

  @PostConstruct
  void createTable() {
    jdbc.execute("CREATE SCHEMA IF NOT EXISTS " + table.substring(0, table.indexOf('.')));
    jdbc.execute(
        "CREATE TABLE IF NOT EXISTS "
            + table
            + " (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, customer text NOT NULL)");
  }

  /**
   * Inserts an order for {@code customer} and enqueues its confirmation; then, when {@code
   * declined}, throws, which rolls both back.
   */
  @Transactional
  public long placeOrder(String customer, Payment payment) {
    Long id =
        jdbc.queryForObject(
            "INSERT INTO " + table + " (customer) VALUES (?) RETURNING id", Long.class, customer);
    baton.enqueue(new SendConfirmation(id, customer));
    if (payment == Payment.DECLINED) {
      throw new IllegalStateException("payment declined for " + customer);
    }
    return id;
  }

  /** Orders of {@code customer}. */
  public long ordersOf(String customer) {
    return jdbc.queryForObject(
        "SELECT count(*) FROM " + table + " WHERE customer = ?", Long.class, customer);
  }

  /** How a payment ends. */
  public enum Payment {
    ACCEPTED,
    DECLINED
  }
}
