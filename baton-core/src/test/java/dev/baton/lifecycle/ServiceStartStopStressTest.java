package dev.baton.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.Baton;
import dev.baton.JobArgs;
import dev.baton.RetryPolicy;
import dev.baton.internal.TimeSource;
import dev.baton.internal.cluster.Cluster;
import dev.baton.internal.cluster.Elector;
import dev.baton.internal.cluster.NodeRegistry;
import dev.baton.internal.completer.Completer;
import dev.baton.internal.db.AdminStore;
import dev.baton.internal.db.ClusterStore;
import dev.baton.internal.db.HolderStore;
import dev.baton.internal.db.Leadership;
import dev.baton.internal.db.MaintenanceStore;
import dev.baton.internal.db.PollStore;
import dev.baton.internal.db.SchemaName;
import dev.baton.internal.executor.JobExecutor;
import dev.baton.internal.held.HeldJobs;
import dev.baton.internal.held.NodeCounters;
import dev.baton.internal.lease.Heartbeater;
import dev.baton.internal.maintenance.Rescuer;
import dev.baton.internal.notify.Notifier;
import dev.baton.internal.producer.Poller;
import dev.baton.internal.producer.Producer;
import dev.baton.testing.Fixture;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The start/stop contract of every long-lived service (STYLE.md: start returns when running, stop
 * returns when stopped, stop before start and stop twice are fine), on real PostgreSQL.
 *
 * <p>Each trial runs its callers in a thread group of its own and builds the service on one of
 * them, so every thread the service starts (directly, or from its own threads) lands in that group:
 * a live {@code baton-*} thread of the group that did not exist before the trial belongs to the
 * instance under test, whatever else the JVM runs.
 *
 * <p>A bug found here is a bug of the service: the checks stay strict.
 */
class ServiceStartStopStressTest {

  private static final int ROUNDS = 20;
  private static final int CALLERS = 8;

  /**
   * How long one start or stop may take: longer than any wait a service documents ({@code
   * Baton.start} waits up to 5 s for its LISTEN), shorter than the 10 s a hung step is given.
   */
  private static final Duration CALL_BOUND = Duration.ofSeconds(8);

  /** How long the threads of a stopped instance may take to end once stop has returned. */
  private static final Duration THREADS_END_WITHIN = Duration.ofSeconds(3);

  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(5);

  record Noop(int n) implements JobArgs {}

  /**
   * The services under test, with the threads a started instance runs at once (the client's {@code
   * baton-timer} and {@code baton-worker-N} start with its first job, so are not listed).
   */
  enum Service {
    BATON_CLIENT(
        "baton-producer-default",
        "baton-completer",
        "baton-heartbeater",
        "baton-notifier",
        "baton-poller",
        "baton-cluster",
        "baton-maintenance"),
    CLUSTER("baton-cluster", "baton-maintenance"),
    NOTIFIER("baton-notifier"),
    HEARTBEATER("baton-heartbeater"),
    COMPLETER("baton-completer"),
    PRODUCER("baton-producer-default"),
    POLLER("baton-poller");

    final Set<String> threads;

    Service(String... threads) {
      this.threads = Set.of(threads);
    }

    /** Whether the service registers a node (and may lead). */
    boolean isNode() {
      return this == BATON_CLIENT || this == CLUSTER;
    }
  }

  /** A start or a stop. */
  @FunctionalInterface
  interface Action {
    void run() throws Exception;
  }

  /**
   * One fresh instance of a service.
   *
   * @param nodeId the node it registers, or null
   * @param cleanUp releases what the test built around the service (pools, executors)
   */
  record Instance(Action start, Action stop, String nodeId, Runnable cleanUp) {}

  private Fixture f;

  @BeforeEach
  void setUp() {
    f = new Fixture(32);
  }

  @AfterEach
  void tearDown() {
    f.close();
  }

  // ---------------------------------------------------------------- the contract

  @ParameterizedTest
  @EnumSource(Service.class)
  void startAndStopFromManyThreadsLeaveNothingRunning(Service service) throws Exception {
    for (int round = 0; round < ROUNDS; round++) {
      String nodeId = "stress-" + service.name().toLowerCase() + "-" + round;
      List<String> problems = new ArrayList<>();
      try (Trial trial = new Trial(service + "-round-" + round, CALLERS)) {
        Instance instance = trial.call("build", () -> create(service, nodeId));
        try {
          problems.addAll(startAndStopAtOnce(trial, service, instance));
          // Every call has returned and at least one was a stop: whichever order the calls took
          // effect in, the instance is stopped now, and a start after a stop changes nothing.
          List<String> left = trial.awaitThreadsEnded();
          if (!left.isEmpty()) {
            problems.add(
                "threads still alive "
                    + THREADS_END_WITHIN.toMillis()
                    + " ms after every call returned: "
                    + left
                    + "\n"
                    + trial.stacks());
          }
          if (service.isNode()) {
            problems.addAll(nodeRowsOf(nodeId));
          }
        } finally {
          trial.stopQuietly(instance);
        }
      }
      if (!problems.isEmpty()) {
        fail(
            "%s, round %d of %d (4 callers start, 4 stop, at once):%n  %s",
            service, round + 1, ROUNDS, String.join("\n  ", problems));
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Service.class)
  void stopBeforeStartThenStartIsRefusedOrDoesNothing(Service service) throws Exception {
    String nodeId = "stop-first-" + service.name().toLowerCase();
    try (Trial trial = new Trial(service + "-stop-first", 1)) {
      Instance instance = trial.call("build", () -> create(service, nodeId));
      try {
        trial.call("stop() before start()", run(instance.stop()));
        Throwable refused = trial.outcome("start() after stop()", instance.start());
        if (service == Service.BATON_CLIENT) {
          // Documented: "a stopped client cannot start again" (@throws IllegalStateException).
          assertThat(refused)
              .as("Baton.start() after stop()")
              .isInstanceOf(IllegalStateException.class)
              .hasMessageContaining("it was stopped");
        } else if (service == Service.CLUSTER) {
          // Documented: "a stopped cluster cannot start again"; start throws nothing.
          assertThat(refused).as("Cluster.start() after stop()").isNull();
        } else if (refused != null) {
          // Not documented: a clean refusal is the only exception the contract leaves room for.
          assertThat(refused)
              .as("%s start() after stop()", service)
              .isInstanceOf(IllegalStateException.class);
        }
        assertThat(trial.awaitThreadsEnded())
            .as(
                "%s threads alive after stop() then start(): a stopped service must not run",
                service)
            .isEmpty();
        if (service.isNode()) {
          assertThat(nodeRowsOf(nodeId)).as("rows of the stopped node %s", nodeId).isEmpty();
        }
      } finally {
        trial.stopQuietly(instance);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Service.class)
  void stopTwiceIsFine(Service service) throws Exception {
    String nodeId = "stop-twice-" + service.name().toLowerCase();
    try (Trial trial = new Trial(service + "-stop-twice", 1)) {
      Instance instance = trial.call("build", () -> create(service, nodeId));
      try {
        trial.call("start()", run(instance.start()));
        // The trial sees the instance's threads: the checks below are not vacuous.
        assertThat(trial.liveThreads())
            .as("%s threads once started", service)
            .containsAll(service.threads);
        trial.call("first stop()", run(instance.stop()));
        trial.call("second stop()", run(instance.stop()));
        assertThat(trial.awaitThreadsEnded()).as("%s threads after stop twice", service).isEmpty();
        if (service.isNode()) {
          assertThat(nodeRowsOf(nodeId)).as("rows of the stopped node %s", nodeId).isEmpty();
        }
      } finally {
        trial.stopQuietly(instance);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = Service.class,
      names = {"BATON_CLIENT", "CLUSTER"})
  void stoppedNodeHasDeregisteredAndResigned(Service service) throws Exception {
    String nodeId = "leader-" + service.name().toLowerCase();
    try (Trial trial = new Trial(service + "-leader", 1)) {
      Instance instance = trial.call("build", () -> create(service, nodeId));
      try {
        trial.call("start()", run(instance.start()));
        // A lone node registers and leads by the time start() returns.
        assertThat(count("SELECT count(*) FROM %s.node WHERE id = ?", nodeId))
            .as("node rows of %s while running", nodeId)
            .isEqualTo(1);
        assertThat(count("SELECT count(*) FROM %s.leader WHERE leader_id = ?", nodeId))
            .as("leader rows naming %s while running", nodeId)
            .isEqualTo(1);
        trial.call("stop()", run(instance.stop()));
        assertThat(nodeRowsOf(nodeId)).as("rows of the stopped node %s", nodeId).isEmpty();
        assertThat(trial.awaitThreadsEnded()).as("%s threads after stop", service).isEmpty();
      } finally {
        trial.stopQuietly(instance);
      }
    }
  }

  // ---------------------------------------------------------------- one stress round

  /**
   * Releases {@link #CALLERS} callers at once, half calling start and half stop; returns every
   * exception but the documented ones, and every call that did not return within the bound.
   */
  private List<String> startAndStopAtOnce(Trial trial, Service service, Instance instance)
      throws InterruptedException {
    CyclicBarrier barrier = new CyclicBarrier(CALLERS);
    List<Future<?>> calls = new ArrayList<>();
    List<AtomicReference<Thread>> callers = new ArrayList<>();
    for (int i = 0; i < CALLERS; i++) {
      boolean starts = i % 2 == 0;
      AtomicReference<Thread> caller = new AtomicReference<>();
      callers.add(caller);
      calls.add(
          trial.submit(
              () -> {
                caller.set(Thread.currentThread());
                barrier.await(CALL_BOUND.toMillis(), TimeUnit.MILLISECONDS);
                (starts ? instance.start() : instance.stop()).run();
                return null;
              }));
    }
    List<String> problems = new ArrayList<>();
    long deadline = System.nanoTime() + CALL_BOUND.toNanos();
    for (int i = 0; i < CALLERS; i++) {
      String what = (i % 2 == 0 ? "start()" : "stop()") + " by caller " + i;
      try {
        calls.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        Thread t = callers.get(i).get();
        problems.add(
            what
                + " did not return within "
                + CALL_BOUND.toMillis()
                + " ms; it is at:\n"
                + (t == null ? "    (not started)" : stackOf(t)));
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        boolean documented =
            service == Service.BATON_CLIENT
                && i % 2 == 0
                && cause instanceof IllegalStateException
                && String.valueOf(cause.getMessage()).contains("it was stopped");
        if (!documented) {
          problems.add(what + " threw " + describe(cause));
        }
      }
    }
    return problems;
  }

  // ---------------------------------------------------------------- the services

  private Instance create(Service service, String nodeId) {
    SchemaName schema = SchemaName.of(f.schema());
    HolderStore store = new HolderStore(schema);
    HeldJobs held = new HeldJobs();
    NodeCounters counters = new NodeCounters();
    switch (service) {
      case BATON_CLIENT:
        {
          Baton baton =
              Baton.builder(f.dataSource())
                  .config(
                      f.config()
                          .nodeId(nodeId)
                          .queue("default", 2)
                          .stopTimeout(STOP_TIMEOUT)
                          .build())
                  .handler(Noop.class, (ctx, a) -> {})
                  .build();
          return new Instance(baton::start, baton::stop, nodeId, () -> {});
        }
      case CLUSTER:
        {
          ClusterStore cs = new ClusterStore(schema);
          Cluster cluster =
              new Cluster(
                  new Elector(
                      f.dataSource(),
                      cs,
                      Leadership.MAINTENANCE,
                      nodeId,
                      Duration.ofSeconds(3),
                      TimeSource.SYSTEM),
                  new NodeRegistry(
                      f.dataSource(),
                      cs,
                      NodeRegistry.describe(nodeId, List.of("default")),
                      TimeSource.SYSTEM),
                  Duration.ofMillis(100),
                  List.of(
                      new Cluster.Periodic(
                          new Rescuer(
                              f.dataSource(),
                              new MaintenanceStore(schema),
                              counters,
                              TimeSource.SYSTEM,
                              Rescuer.DEFAULT_BATCH_SIZE),
                          Duration.ofMillis(50))));
          return new Instance(cluster::start, () -> cluster.stop(STOP_TIMEOUT), nodeId, () -> {});
        }
      case NOTIFIER:
        {
          Notifier notifier =
              new Notifier(
                  f.dataSource(),
                  schema.insertChannel(),
                  schema.controlChannel(),
                  queue -> {},
                  payload -> {},
                  () -> {});
          return new Instance(notifier::start, () -> notifier.stop(STOP_TIMEOUT), null, () -> {});
        }
      case HEARTBEATER:
        {
          Heartbeater heartbeater =
              new Heartbeater(
                  f.dataSource(),
                  store,
                  held,
                  counters,
                  new Heartbeater.Settings(Duration.ofSeconds(30), Duration.ofMillis(50)));
          return new Instance(
              heartbeater::start, () -> heartbeater.stop(STOP_TIMEOUT), null, () -> {});
        }
      case COMPLETER:
        {
          Completer completer = completer(store, held, counters);
          return new Instance(completer::start, () -> completer.stop(STOP_TIMEOUT), null, () -> {});
        }
      case PRODUCER:
        {
          Completer completer = completer(store, held, counters);
          ExecutorService workers = Executors.newFixedThreadPool(2, daemon("test-worker"));
          ScheduledExecutorService timer =
              Executors.newScheduledThreadPool(1, daemon("test-timer"));
          JobExecutor executor =
              new JobExecutor(
                  new JobExecutor.Wiring(
                      f.dataSource(), store, new AdminStore(schema), held, counters, completer),
                  new ObjectMapper(),
                  Map.of(),
                  workers,
                  timer,
                  new JobExecutor.Settings(
                      f.schema(),
                      "producer-node",
                      Duration.ofMinutes(1),
                      Duration.ofSeconds(30),
                      RetryPolicy.exponential(),
                      dev.baton.BatonConfig.DEFAULT_MAX_ARGS_BYTES));
          Producer producer =
              new Producer(
                  f.dataSource(),
                  store,
                  executor,
                  completer,
                  new Producer.Settings(
                      "default",
                      2,
                      new Producer.Claim(
                          "producer-node",
                          Duration.ofSeconds(30),
                          new String[0],
                          new Long[0],
                          Duration.ofMinutes(1)),
                      Duration.ofMillis(50),
                      100,
                      new Producer.Prefetch(2, Producer.Depth.FIXED)));
          return new Instance(
              producer::start,
              () -> producer.stop(STOP_TIMEOUT),
              null,
              () -> {
                workers.shutdownNow();
                timer.shutdownNow();
              });
        }
      case POLLER:
        {
          Poller poller =
              new Poller(f.dataSource(), new PollStore(schema), List.of(), Duration.ofMillis(50));
          return new Instance(poller::start, () -> poller.stop(STOP_TIMEOUT), null, () -> {});
        }
      default:
        throw new IllegalArgumentException("no instance for " + service);
    }
  }

  private Completer completer(HolderStore store, HeldJobs held, NodeCounters counters) {
    return new Completer(
        f.dataSource(),
        store,
        held,
        counters,
        new Completer.Settings(100, 64, Duration.ofMillis(2)));
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  // ---------------------------------------------------------------- the node's rows

  /** The registry and leader rows that still name {@code nodeId}, described; empty when none. */
  private List<String> nodeRowsOf(String nodeId) {
    List<String> rows = new ArrayList<>();
    if (count("SELECT count(*) FROM %s.node WHERE id = ?", nodeId) > 0) {
      rows.add("the stopped node " + nodeId + " is still registered (a row in node)");
    }
    if (count("SELECT count(*) FROM %s.leader WHERE leader_id = ?", nodeId) > 0) {
      rows.add("the stopped node " + nodeId + " did not resign (a row in leader names it)");
    }
    return rows;
  }

  private long count(String sql, String nodeId) {
    try (Connection c = f.db().admin().getConnection();
        PreparedStatement ps = c.prepareStatement(sql.replace("%s", "\"" + f.schema() + "\""))) {
      ps.setString(1, nodeId);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new AssertionError("cannot query " + sql, e);
    }
  }

  // ---------------------------------------------------------------- threads

  /**
   * The callers of one trial, in a thread group of their own, and the JVM's threads before it.
   * Closing it ends the callers.
   */
  private static final class Trial implements AutoCloseable {
    private final Set<Thread> before = Set.copyOf(Thread.getAllStackTraces().keySet());
    private final ThreadGroup group;
    private final ExecutorService callers;

    Trial(String name, int size) {
      this.group = new ThreadGroup("lifecycle-" + name);
      AtomicInteger n = new AtomicInteger();
      this.callers =
          Executors.newFixedThreadPool(
              size,
              r -> {
                Thread t = new Thread(group, r, "lifecycle-caller-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
              });
    }

    <T> Future<T> submit(Callable<T> task) {
      return callers.submit(task);
    }

    /** Runs {@code task} on a caller; fails on its exception or if it overruns the bound. */
    <T> T call(String what, Callable<T> task) throws Exception {
      Future<T> fu = callers.submit(task);
      try {
        return fu.get(CALL_BOUND.toMillis(), TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        throw new AssertionError(
            what + " did not return within " + CALL_BOUND.toMillis() + " ms\n" + stacks());
      } catch (ExecutionException e) {
        throw new AssertionError(what + " threw " + describe(e.getCause()), e.getCause());
      }
    }

    /** Runs {@code action} on a caller within the bound; returns what it threw, or null. */
    Throwable outcome(String what, Action action) throws Exception {
      try {
        call(what, run(action));
        return null;
      } catch (AssertionError e) {
        if (e.getCause() == null) {
          throw e; // it hung
        }
        return e.getCause();
      }
    }

    /** The names of the live {@code baton-*} threads started in this trial. */
    List<String> liveThreads() {
      return threads().stream().map(Thread::getName).sorted().collect(Collectors.toList());
    }

    private List<Thread> threads() {
      return Thread.getAllStackTraces().keySet().stream()
          .filter(t -> t.isAlive() && t.getName().startsWith("baton-"))
          .filter(t -> !before.contains(t) && t.getThreadGroup() == group)
          .collect(Collectors.toList());
    }

    /**
     * Waits up to {@link #THREADS_END_WITHIN} for the trial's {@code baton-*} threads to end;
     * returns those still alive.
     */
    List<String> awaitThreadsEnded() {
      try {
        Awaitility.await()
            .atMost(THREADS_END_WITHIN)
            .pollInterval(Duration.ofMillis(10))
            .until(() -> threads().isEmpty());
      } catch (ConditionTimeoutException e) {
        // reported by the caller
      }
      return liveThreads();
    }

    /** Where each live {@code baton-*} thread of the trial is, for a failure message. */
    String stacks() {
      StringBuilder out = new StringBuilder();
      for (Thread t : threads()) {
        out.append("  thread ").append(t.getName()).append(":\n").append(stackOf(t));
      }
      return out.toString();
    }

    /** Stops {@code instance} once more, bounded, and waits for its threads: cleanup only. */
    void stopQuietly(Instance instance) {
      Future<?> fu = callers.submit(run(instance.stop()));
      try {
        fu.get(CALL_BOUND.toMillis(), TimeUnit.MILLISECONDS);
      } catch (Exception e) {
        // cleanup: the test reports what went wrong
      }
      instance.cleanUp().run();
      awaitThreadsEnded();
    }

    @Override
    public void close() {
      callers.shutdownNow();
    }
  }

  private static Callable<Void> run(Action action) {
    return () -> {
      action.run();
      return null;
    };
  }

  private static String stackOf(Thread t) {
    return Arrays.stream(t.getStackTrace())
        .limit(12)
        .map(e -> "      at " + e + "\n")
        .collect(Collectors.joining());
  }

  private static String describe(Throwable t) {
    StackTraceElement[] trace = t.getStackTrace();
    StringBuilder out = new StringBuilder(t.toString());
    for (int i = 0; i < Math.min(6, trace.length); i++) {
      out.append("\n      at ").append(trace[i]);
    }
    return out.toString();
  }
}
