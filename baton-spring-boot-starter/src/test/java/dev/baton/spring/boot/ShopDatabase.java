package dev.baton.spring.boot;

import dev.baton.testing.TestDatabase;
import org.springframework.test.context.DynamicPropertyRegistry;

/** The test database, as the shop application's properties. */
final class ShopDatabase {
  private ShopDatabase() {}

  /** Points the application at the test database and Baton at {@code schema}. */
  static void register(DynamicPropertyRegistry registry, String schema) {
    registry.add("spring.datasource.url", TestDatabase.get()::jdbcUrl);
    registry.add("baton.schema", () -> schema);
  }
}
