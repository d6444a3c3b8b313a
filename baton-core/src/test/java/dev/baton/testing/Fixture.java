package dev.baton.testing;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.Job;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A fresh migrated schema, a pool on it, and the clients a test starts; closing it stops them all
 * and closes the pools. One per test method keeps tests independent.
 */
public final class Fixture implements AutoCloseable {
  private final TestDatabase db = TestDatabase.get();
  private final String schema;
  private final HikariDataSource ds;
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final Baton reader;

  public Fixture() {
    this(16);
  }

  public Fixture(int poolSize) {
    this.schema = db.newMigratedSchema();
    this.ds = db.dataSource(poolSize);
    this.reader =
        Baton.builder(ds)
            .config(BatonConfig.builder().schema(schema).allowUnknownKinds(true).build())
            .build();
  }

  public TestDatabase db() {
    return db;
  }

  public String schema() {
    return schema;
  }

  public HikariDataSource dataSource() {
    return ds;
  }

  /** A config builder on this schema with test-friendly defaults (fast poll). */
  public BatonConfig.Builder config() {
    return BatonConfig.builder()
        .schema(schema)
        .pollInterval(java.time.Duration.ofMillis(200))
        .maintenanceInterval(java.time.Duration.ofMillis(200));
  }

  /** Builds and starts a client on this fixture's pool. */
  public Baton start(BatonConfig config, Consumer<Baton.Builder> handlers) {
    return start(ds, config, handlers);
  }

  /** Builds and starts a client on its own pool of {@code poolSize}. */
  public Baton startOnOwnPool(int poolSize, BatonConfig config, Consumer<Baton.Builder> handlers) {
    HikariDataSource own = db.dataSource(poolSize);
    closeables.add(own);
    return start(own, config, handlers);
  }

  private Baton start(HikariDataSource pool, BatonConfig config, Consumer<Baton.Builder> handlers) {
    Baton.Builder b = Baton.builder(pool).config(config);
    handlers.accept(b);
    Baton baton = b.build();
    closeables.add(0, baton);
    baton.start();
    return baton;
  }

  /**
   * Blocks the calling handler until it is interrupted (cancel, timeout, lost lease, stop): the
   * stand-in for a long call that honours interruption.
   */
  public static void blockUntilInterrupted() throws InterruptedException {
    new java.util.concurrent.CountDownLatch(1).await();
  }

  /** A client that only enqueues and reads, with every kind allowed. */
  public Baton reader() {
    return reader;
  }

  /** The job as stored now. */
  public Job job(long id) {
    return reader.job(id).orElseThrow(() -> new AssertionError("job " + id + " does not exist"));
  }

  /** A count from SQL on this schema; {@code %s} in the SQL is replaced by the schema name. */
  public long count(String sql) {
    return db.queryLong(sql.replace("%s", schema));
  }

  /** Runs SQL on this schema; {@code %s} is replaced by the schema name. */
  public void execute(String sql) {
    db.execute(sql.replace("%s", schema));
  }

  @Override
  public void close() {
    for (AutoCloseable c : closeables) {
      try {
        c.close();
      } catch (Exception e) {
        // keep closing the rest
      }
    }
    reader.close(); // stops its backlog caps refresh before the pool goes
    ds.close();
  }
}
