package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.admin.BatonAdmin;
import dev.baton.internal.db.Db;
import dev.baton.testing.Fixture;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Backlog caps (docs/backlog-caps.md): concurrent producers never take a queue over its cap; a
 * refused enqueue writes nothing and leaves the caller's transaction usable; a bulk is all or
 * nothing; a queue without a cap runs exactly the statements it ran before caps existed; a cap set
 * by another process is checked by every client once {@code setBacklogCap} has returned.
 */
class BacklogCapTest {

  record Work(int n) implements JobArgs {}

  private static final String WAITING =
      "SELECT count(*) FROM %s.job WHERE queue = 'capped'"
          + " AND state IN ('available', 'scheduled', 'retryable')";

  private static EnqueueOptions capped() {
    return EnqueueOptions.builder().queue("capped").build();
  }

  @Test
  void twentyProducersNeverTakeAQueueOverItsCap() throws Exception {
    int producers = 20;
    int cap = 1_000;
    int perProducer = 60;
    try (Fixture f = new Fixture(producers + 10)) {
      BatonAdmin admin = new BatonAdmin(f.dataSource(), f.schema());
      admin.setBacklogCap("capped", cap, "test");
      Baton baton = f.reader();
      // Filled close to the cap first, so that the producers meet at its edge at once.
      List<JobRequest> fill = new ArrayList<>();
      for (int i = 0; i < cap - 40; i++) {
        fill.add(JobRequest.of(new Work(i), capped()));
      }
      baton.enqueueMany(fill);
      AtomicBoolean done = new AtomicBoolean();
      AtomicLong maxSeen = new AtomicLong();
      AtomicInteger samples = new AtomicInteger();
      AtomicInteger refused = new AtomicInteger();
      AtomicInteger admitted = new AtomicInteger(fill.size());
      AtomicInteger taken = new AtomicInteger();
      ExecutorService pool = Executors.newFixedThreadPool(producers + 2);
      // The sampler reads the waiting count on its own connection, as often as it can.
      Future<?> sampler =
          pool.submit(
              () -> {
                try (Connection c = f.dataSource().getConnection();
                    PreparedStatement ps = c.prepareStatement(WAITING.replace("%s", f.schema()))) {
                  while (!done.get()) {
                    try (ResultSet rs = ps.executeQuery()) {
                      rs.next();
                      maxSeen.accumulateAndGet(rs.getLong(1), Math::max);
                      samples.incrementAndGet();
                    }
                  }
                }
                return null;
              });
      // Once the cap has refused someone, a consumer takes a few jobs now and then, so the queue
      // keeps going back under its cap and the producers keep meeting at its edge.
      Future<?> consumer =
          pool.submit(
              () -> {
                while (!done.get()) {
                  if (refused.get() > 0) {
                    taken.addAndGet(
                        (int)
                            f.count(
                                "WITH t AS (UPDATE %s.job SET state = 'completed', finalized_at ="
                                    + " now() WHERE id IN (SELECT id FROM %s.job WHERE queue ="
                                    + " 'capped' AND state = 'available' ORDER BY id LIMIT 2 FOR"
                                    + " UPDATE SKIP LOCKED) RETURNING 1) SELECT count(*) FROM t"));
                  }
                  Thread.sleep(10);
                }
                return null;
              });
      CyclicBarrier start = new CyclicBarrier(producers);
      List<Future<?>> running = new ArrayList<>();
      for (int p = 0; p < producers; p++) {
        int producer = p;
        running.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < perProducer; i++) {
                    try {
                      if (i % 10 == 9) { // now and then a bulk of three
                        baton.enqueueMany(
                            List.of(
                                JobRequest.of(new Work(i), capped()),
                                JobRequest.of(new Work(i), capped()),
                                JobRequest.of(new Work(i), capped())));
                        admitted.addAndGet(3);
                      } else if (producer % 2 == 0) {
                        baton.enqueue(new Work(i), capped());
                        admitted.incrementAndGet();
                      } else {
                        // in a business transaction of its own, committed after the enqueue
                        try (Connection c = f.dataSource().getConnection()) {
                          c.setAutoCommit(false);
                          baton.enqueue(c, new Work(i), capped());
                          c.commit();
                          admitted.incrementAndGet();
                        }
                      }
                    } catch (BacklogCapExceededException e) {
                      refused.incrementAndGet();
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> r : running) {
        r.get();
      }
      done.set(true);
      sampler.get();
      consumer.get();
      pool.shutdown();

      System.out.printf(
          "backlog cap %d, %d producers: %d jobs admitted, %d enqueues refused, %d jobs taken by"
              + " the consumer, %d samples, most waiting seen %d%n",
          cap, producers, admitted.get(), refused.get(), taken.get(), samples.get(), maxSeen.get());
      assertThat(maxSeen.get()).isLessThanOrEqualTo(cap);
      assertThat(f.count(WAITING)).isLessThanOrEqualTo(cap);
      // the producers did meet the cap, and every admitted job is in the table
      assertThat(refused.get()).isPositive();
      assertThat(taken.get()).isPositive();
      assertThat(f.count("SELECT count(*) FROM %s.job")).isEqualTo(admitted.get());
    }
  }

  @Test
  void aRefusedEnqueueWritesNothingAndLeavesTheTransactionUsable() throws Exception {
    try (Fixture f = new Fixture()) {
      f.execute("CREATE TABLE %s.orders (name text)");
      f.execute("INSERT INTO %s.queue (name, backlog_cap) VALUES ('capped', 2)");
      Baton baton = f.reader();
      baton.enqueue(new Work(1), capped());
      baton.enqueue(new Work(2), capped());

      try (Connection c = f.dataSource().getConnection()) {
        c.setAutoCommit(false);
        insertOrder(f, c, "first");
        assertThatThrownBy(() -> baton.enqueue(c, new Work(3), capped()))
            .isInstanceOfSatisfying(
                BacklogCapExceededException.class,
                e -> {
                  assertThat(e.queue()).isEqualTo("capped");
                  assertThat(e.cap()).isEqualTo(2);
                  assertThat(e.waiting()).isEqualTo(2);
                  assertThat(e.jobs()).isEqualTo(1);
                  assertThat(e)
                      .hasMessage(
                          "cannot enqueue 1 job (queue=capped): the queue has 2 waiting jobs and"
                              + " a backlog cap of 2; retry later or raise the cap");
                });
        // a bulk is all or nothing: the job of the queue without a cap is not written either
        assertThatThrownBy(
                () ->
                    baton.enqueueMany(
                        c,
                        List.of(JobRequest.of(new Work(4)), JobRequest.of(new Work(5), capped()))))
            .isInstanceOf(BacklogCapExceededException.class);
        // the transaction goes on: the caller chooses to commit its own write
        insertOrder(f, c, "second");
        c.commit();
      }
      assertThat(f.count("SELECT count(*) FROM %s.orders")).isEqualTo(2);
      assertThat(f.count("SELECT count(*) FROM %s.job")).isEqualTo(2);
      // counted for the metric baton.enqueues.refused: one single and one bulk
      assertThat(baton.internals().counters().refusedEnqueues.sum()).isEqualTo(2);

      // a job leaving the queue makes room again
      f.execute(
          "UPDATE %s.job SET state = 'running', lease_expires_at = now() WHERE id IN"
              + " (SELECT min(id) FROM %s.job)");
      assertThat(baton.enqueue(new Work(6), capped()).job().queue()).isEqualTo("capped");
      assertThatThrownBy(() -> baton.enqueue(new Work(7), capped()))
          .isInstanceOf(BacklogCapExceededException.class);
      assertThat(f.count(WAITING)).isEqualTo(2);
    }
  }

  @Test
  void aProducerLearnsInsideItsTransactionThatTheQueueIsFull() throws Exception {
    try (Fixture f = new Fixture()) {
      f.execute("CREATE TABLE %s.orders (name text, deferred boolean NOT NULL DEFAULT false)");
      Baton baton = f.reader();
      DataSource dataSource = f.dataSource();
      String orders = "\"" + f.schema() + "\".orders";
      // docs:begin backlog-cap
      baton.setBacklogCap("reports", 1); // cluster-wide; returns once every client checks it
      for (String order : List.of("first", "second")) {
        try (Connection c = dataSource.getConnection()) {
          c.setAutoCommit(false);
          try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + orders + " VALUES (?)")) {
            ps.setString(1, order);
            ps.executeUpdate();
          }
          try {
            baton.enqueue(c, new Work(1), EnqueueOptions.builder().queue("reports").build());
          } catch (BacklogCapExceededException e) {
            // nothing was written and the transaction goes on: keep the order, report it later
            try (PreparedStatement ps =
                c.prepareStatement("UPDATE " + orders + " SET deferred = true WHERE name = ?")) {
              ps.setString(1, order);
              ps.executeUpdate();
            }
          }
          c.commit();
        }
      }
      // docs:end backlog-cap
      assertThat(f.count("SELECT count(*) FROM %s.orders WHERE deferred")).isOne();
      assertThat(f.count("SELECT count(*) FROM %s.orders")).isEqualTo(2);
      assertThat(f.count("SELECT count(*) FROM %s.job WHERE queue = 'reports'")).isOne();
    }
  }

  @Test
  void anEnqueueThatMayClaimItsJobInItsInsertIsAdmittedToo() throws Exception {
    try (Fixture f = new Fixture()) {
      f.execute("INSERT INTO %s.queue (name, backlog_cap) VALUES ('capped', 1)");
      java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
      // a worker that hears of no other client's job (no LISTEN, an hourly poll)
      Baton baton =
          f.start(
              f.config()
                  .queue("capped", 2)
                  .pollOnly(true)
                  .pollInterval(java.time.Duration.ofHours(1))
                  .build(),
              b -> b.handler(Work.class, (ctx, a) -> release.await()));
      try {
        // claimed in its insert: running, so it does not wait
        assertThat(baton.enqueue(new Work(1), capped()).job().state()).isEqualTo(JobState.RUNNING);
        // another client's job waits: the one waiting job the cap allows
        assertThat(f.reader().enqueue(new Work(2), capped()).job().state())
            .isEqualTo(JobState.AVAILABLE);
        // a slot is free, but a job waits ahead: this one would wait too, over the cap
        assertThatThrownBy(() -> baton.enqueue(new Work(3), capped()))
            .isInstanceOf(BacklogCapExceededException.class);
        assertThat(f.count("SELECT count(*) FROM %s.job")).isEqualTo(2);
      } finally {
        release.countDown();
      }
    }
  }

  @Test
  void theSqlEnqueueFunctionIsAdmittedThroughTheCapToo() throws Exception {
    try (Fixture f = new Fixture()) {
      f.execute("INSERT INTO %s.queue (name, backlog_cap) VALUES ('capped', 1)");
      String call =
          "SELECT * FROM \"" + f.schema() + "\".enqueue('work', '{\"n\": 1}', queue => 'capped')";
      try (Connection c = f.dataSource().getConnection();
          Statement st = c.createStatement()) {
        st.executeQuery(call).close();
        assertThatThrownBy(() -> st.executeQuery(call).close())
            .isInstanceOfSatisfying(
                SQLException.class,
                e -> {
                  assertThat(e.getSQLState()).isEqualTo(BacklogCapExceededException.SQL_STATE);
                  assertThat(e.getMessage())
                      .contains(
                          "cannot enqueue 1 job (queue=capped): the queue has 1 waiting jobs and"
                              + " a backlog cap of 1; retry later or raise the cap");
                });
      }
      assertThat(f.count("SELECT count(*) FROM %s.job WHERE queue = 'capped'")).isEqualTo(1);
    }
  }

  @Test
  void sqlCallersGetTheSameRefusalAsADocumentedSqlState() throws Exception {
    try (Fixture f = new Fixture()) {
      f.execute("INSERT INTO %s.queue (name, backlog_cap) VALUES ('capped', 1)");
      f.reader().enqueue(new Work(1), capped());
      try (Connection c = f.dataSource().getConnection();
          Statement st = c.createStatement()) {
        st.execute("SELECT \"" + f.schema() + "\".check_backlog_cap('free', 5)");
        assertThatThrownBy(
                () -> st.execute("SELECT \"" + f.schema() + "\".check_backlog_cap('capped', 1)"))
            .isInstanceOfSatisfying(
                SQLException.class,
                e -> {
                  assertThat(e.getSQLState()).isEqualTo(BacklogCapExceededException.SQL_STATE);
                  assertThat(e.getMessage())
                      .contains(
                          "cannot enqueue 1 job (queue=capped): the queue has 1 waiting jobs and"
                              + " a backlog cap of 1; retry later or raise the cap");
                  // met by Java code (the client's own paths never raise it), it is typed
                  assertThat(Db.wrap("cannot enqueue", e))
                      .isInstanceOfSatisfying(
                          BacklogCapExceededException.class,
                          t -> {
                            assertThat(t.queue()).isEqualTo("capped");
                            assertThat(t.cap()).isEqualTo(1);
                            assertThat(t.waiting()).isEqualTo(1);
                            assertThat(t.jobs()).isEqualTo(1);
                          });
                });
      }
    }
  }

  @Test
  void aQueueWithoutACapRunsTheStatementsItRanBefore() throws Exception {
    try (Fixture f = new Fixture()) {
      f.execute("INSERT INTO %s.queue (name, backlog_cap) VALUES ('capped', 100)");
      List<String> sql = new CopyOnWriteArrayList<>();
      Thread me = Thread.currentThread();
      DataSource recording = recording(f.dataSource(), me, sql);
      Baton withCaps =
          Baton.builder(recording)
              .config(BatonConfig.builder().schema(f.schema()).allowUnknownKinds(true).build())
              .build();
      try {
        withCaps.enqueue(new Work(0), capped()); // reads the caps once, on its first enqueue
        sql.clear();
        EnqueueOptions free = EnqueueOptions.builder().queue("free").build();
        withCaps.enqueue(new Work(1), free);
        withCaps.enqueueMany(
            List.of(JobRequest.of(new Work(2), free), JobRequest.of(new Work(3), free)));
        try (Connection c = recording.getConnection()) {
          c.setAutoCommit(false);
          withCaps.enqueue(c, new Work(4), free);
          c.commit();
        }
        List<String> uncapped = List.copyOf(sql);

        // The same calls on a schema where no queue has a cap, by a client that never saw one.
        sql.clear();
        f.execute("UPDATE %s.queue SET backlog_cap = NULL");
        DataSource recordingPlain = recording(f.dataSource(), me, sql);
        Baton plain =
            Baton.builder(recordingPlain)
                .config(BatonConfig.builder().schema(f.schema()).allowUnknownKinds(true).build())
                .build();
        // its first enqueue reads the caps; the next ones are those compared
        plain.enqueue(new Work(0), free);
        sql.clear();
        plain.enqueue(new Work(1), free);
        plain.enqueueMany(
            List.of(JobRequest.of(new Work(2), free), JobRequest.of(new Work(3), free)));
        try (Connection c = recordingPlain.getConnection()) {
          c.setAutoCommit(false);
          plain.enqueue(c, new Work(4), free);
          c.commit();
        }
        plain.close();

        // one statement per call, the insert, as on a schema where no queue has a cap
        assertThat(uncapped).hasSize(3).isEqualTo(sql);
        assertThat(uncapped).noneMatch(s -> s.contains("backlog"));
        assertThat(uncapped.get(0)).startsWith("INSERT INTO \"" + f.schema() + "\".job");
      } finally {
        withCaps.close();
      }
    }
  }

  @Test
  void aCapSetByAnotherProcessIsCheckedOnceSetBacklogCapReturns() throws Exception {
    try (Fixture f = new Fixture()) {
      Baton baton = f.reader();
      baton.enqueue(new Work(1), capped()); // the client's view: no queue has a cap
      // another process (its own admin and pool) sets the cap
      try (var otherPool = f.db().dataSource(2)) {
        BatonAdmin other = new BatonAdmin(otherPool, f.schema());
        assertThat(other.setBacklogCap("capped", 1, "ops")).isEmpty();
        assertThatThrownBy(() -> baton.enqueue(new Work(2), capped()))
            .isInstanceOf(BacklogCapExceededException.class);
        assertThat(other.queues())
            .anySatisfy(
                q -> {
                  assertThat(q.name()).isEqualTo("capped");
                  assertThat(q.backlogCap()).isEqualTo(1);
                });
        // raising or removing a cap takes effect at once
        assertThat(other.setBacklogCap("capped", 2, "ops")).hasValue(1);
        baton.enqueue(new Work(3), capped());
        assertThat(other.removeBacklogCap("capped", "ops")).isTrue();
        baton.enqueue(new Work(4), capped());
        assertThat(other.removeBacklogCap("capped", "ops")).isFalse();
      }
      assertThat(f.count(WAITING)).isEqualTo(3);
    }
  }

  @Test
  void aCapOutOfRangeIsRefusedWithItsRange() {
    try (Fixture f = new Fixture()) {
      BatonAdmin admin = new BatonAdmin(f.dataSource(), f.schema());
      assertThatThrownBy(() -> admin.setBacklogCap("capped", 0, "ops"))
          .isInstanceOf(InvalidConfigException.class)
          .hasMessageContaining("backlog cap of queue \"capped\"")
          .hasMessageContaining("1..100000000")
          .hasMessageContaining("0");
    }
  }

  private static void insertOrder(Fixture f, Connection c, String name) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO \"" + f.schema() + "\".orders VALUES (?)")) {
      ps.setString(1, name);
      ps.executeUpdate();
    }
  }

  /** {@code target}, recording the SQL each statement prepared on {@code thread} runs. */
  private static DataSource recording(DataSource target, Thread thread, List<String> sql) {
    return (DataSource)
        Proxy.newProxyInstance(
            BacklogCapTest.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (self, m, args) -> {
              Object r = invoke(target, m, args);
              if (r instanceof Connection c) {
                return Proxy.newProxyInstance(
                    BacklogCapTest.class.getClassLoader(),
                    new Class<?>[] {Connection.class},
                    (s2, m2, a2) -> {
                      if (m2.getName().equals("prepareStatement")
                          && Thread.currentThread() == thread) {
                        sql.add((String) a2[0]);
                      }
                      return invoke(c, m2, a2);
                    });
              }
              return r;
            });
  }

  private static Object invoke(Object target, java.lang.reflect.Method m, Object[] args)
      throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
