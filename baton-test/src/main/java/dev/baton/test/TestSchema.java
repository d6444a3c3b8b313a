package dev.baton.test;

import dev.baton.BatonConfig;
import javax.sql.DataSource;

/**
 * A migrated Baton schema of one test class, on the test server.
 *
 * @param name the schema's name, for {@link BatonConfig.Builder#schema(String)}
 * @param dataSource a data source on the server (a new session per connection, autocommit)
 * @param jdbcUrl the server's JDBC URL, with user and password
 */
public record TestSchema(String name, DataSource dataSource, String jdbcUrl) {

  /** A config builder on this schema. */
  public BatonConfig.Builder config() {
    return BatonConfig.builder().schema(name);
  }
}
