package dev.baton.spring.boot;

import dev.baton.Baton;
import dev.baton.EnqueueManyResult;
import dev.baton.EnqueueOptions;
import dev.baton.EnqueueResult;
import dev.baton.JobArgs;
import dev.baton.JobRequest;
import java.sql.Connection;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Enqueues jobs in the current Spring transaction: inside a {@code @Transactional} method the job
 * is inserted on the transaction's own connection, so it commits or rolls back with the business
 * write, and no handler ever sees a job whose transaction rolled back. Outside a transaction the
 * job is enqueued on Baton's pool in its own autocommit (and may be claimed in that insert by this
 * node, see {@code baton.claim-on-enqueue}).
 *
 * <p>The transaction's connection is the one {@link DataSourceUtils#getConnection} returns for the
 * application's {@code DataSource}: the one bound by a {@code DataSourceTransactionManager} or a
 * {@code JpaTransactionManager} on that DataSource. Baton's own work (claims, heartbeats, LISTEN)
 * stays on plain connections of the same pool and never joins a caller's transaction.
 *
 * <p>{@link Baton#enqueue(JobArgs)} called directly always uses its own connection and does not
 * join the transaction: enqueue through this bean. Thread-safe.
 */
public class BatonTemplate {
  private final Supplier<Baton> baton;
  private final DataSource dataSource;

  /** A template enqueueing with {@code baton} in transactions on {@code dataSource}. */
  public BatonTemplate(Baton baton, DataSource dataSource) {
    this(() -> baton, dataSource);
    Objects.requireNonNull(baton, "baton");
  }

  /**
   * A template whose client is looked up at first use, so that handler beans can depend on the
   * template while the client depends on the handlers.
   */
  BatonTemplate(Supplier<Baton> baton, DataSource dataSource) {
    this.baton = baton;
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
  }

  /** Enqueues {@code args} with default options; see the class comment for the transaction. */
  public EnqueueResult enqueue(JobArgs args) {
    return enqueue(args, EnqueueOptions.defaults());
  }

  /** Enqueues {@code args} with {@code options}; see the class comment for the transaction. */
  public EnqueueResult enqueue(JobArgs args, EnqueueOptions options) {
    return inCurrentTransaction(
        c -> baton().enqueue(c, args, options), () -> baton().enqueue(args, options));
  }

  /** Enqueues every request at once; see the class comment for the transaction. */
  public EnqueueManyResult enqueueMany(List<JobRequest> requests) {
    return inCurrentTransaction(
        c -> baton().enqueueMany(c, requests), () -> baton().enqueueMany(requests));
  }

  /** The client, for reading jobs, cancelling and the rest of its API. */
  public Baton baton() {
    return baton.get();
  }

  private <R> R inCurrentTransaction(Function<Connection, R> inTransaction, Supplier<R> alone) {
    if (!TransactionSynchronizationManager.isActualTransactionActive()) {
      return alone.get();
    }
    Connection c = DataSourceUtils.getConnection(dataSource);
    try {
      return inTransaction.apply(c);
    } finally {
      DataSourceUtils.releaseConnection(c, dataSource);
    }
  }
}
