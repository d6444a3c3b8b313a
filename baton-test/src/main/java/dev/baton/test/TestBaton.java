package dev.baton.test;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.baton.Baton;
import dev.baton.Drain;
import dev.baton.Job;
import dev.baton.JobArgs;
import dev.baton.JobError;
import dev.baton.JobRun;
import dev.baton.admin.BatonAdmin;
import dev.baton.admin.JobAdmin;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BiPredicate;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * Test helpers around one {@link Baton} client: assertions on the jobs it enqueued, and a {@link
 * #drain} that runs a queue's jobs on the test's thread with the client's real handlers, by a
 * {@link TestClock}.
 *
 * <pre>{@code
 * TestBaton jobs = TestBaton.of(baton, dataSource);
 * checkout.placeOrder(connection, order);            // enqueues in the caller's transaction
 * jobs.assertEnqueued(connection, SendEmail.class, e -> e.orderId() == order.id());
 *
 * List<JobOutcome> runs = jobs.drain("mail");        // runs the handler on this thread
 * jobs.clock().advance(Duration.ofMinutes(5));       // a retry becomes due
 * jobs.drain("mail");
 * }</pre>
 *
 * <p>Assertions see every job of the client's schema, in any state. The {@code Connection}
 * overloads read on the caller's connection in whatever transaction it is in, so they see the jobs
 * that transaction enqueued before it commits, and a test that rolls its transaction back leaves
 * nothing behind; the others read committed jobs on the data source. Args are read with an object
 * mapper configured as the client's default one (Java time, unknown properties ignored); a client
 * built with its own mapper passes it to {@link #withObjectMapper}.
 *
 * <p>The client must not be started: {@link #drain} works its queues in its producers' place. In a
 * Spring Boot test, {@link BatonTestSchema} on the test class keeps the starter from starting it
 * (or set {@code baton.enabled=false}). Thread-safe, though a drain is meant to run on the test's
 * thread.
 */
public final class TestBaton {
  /** Jobs shown in an assertion's failure message. */
  private static final int SHOWN = 10;

  private final Baton baton;
  private final BatonAdmin admin;
  private final DataSource dataSource;
  private final TestClock clock;
  private final ObjectMapper mapper;

  private TestBaton(Baton baton, DataSource dataSource, TestClock clock, ObjectMapper mapper) {
    this.baton = Objects.requireNonNull(baton, "baton");
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.mapper = Objects.requireNonNull(mapper, "objectMapper");
    this.admin = new BatonAdmin(dataSource, baton.config());
  }

  /** Helpers for {@code baton}, reading on {@code dataSource} (the client's), with a new clock. */
  public static TestBaton of(Baton baton, DataSource dataSource) {
    return of(baton, dataSource, TestClock.create());
  }

  /** Helpers for {@code baton}, reading on {@code dataSource}, draining by {@code clock}. */
  public static TestBaton of(Baton baton, DataSource dataSource, TestClock clock) {
    return new TestBaton(baton, dataSource, clock, defaultMapper());
  }

  /** These helpers reading args with {@code mapper}: the one the client was built with. */
  public TestBaton withObjectMapper(ObjectMapper mapper) {
    return new TestBaton(baton, dataSource, clock, mapper);
  }

  /** The client these helpers drive. */
  public Baton baton() {
    return baton;
  }

  /** The clock {@link #drain} works by. */
  public TestClock clock() {
    return clock;
  }

  // ---------------------------------------------------------------- drain

  /**
   * Runs the jobs of {@code queue} that are due by {@link #clock()}, one at a time on this thread,
   * with the client's handlers, until none is due; returns each run's outcome in the order they
   * ran. A failed attempt's retry, and a snooze, are due their delay after the clock's time:
   * advance the clock and drain again to run them. A job the handlers enqueue into the same queue,
   * due by the clock, runs in the same drain. See {@link Drain#run(Baton, String,
   * java.time.Instant)}, which this calls with the clock's time.
   *
   * @throws dev.baton.BatonException if more than {@value Drain#DEFAULT_MAX_RUNS} jobs would run (a
   *     handler that enqueues or snoozes jobs without end)
   * @throws IllegalStateException if the client is started
   */
  public List<JobOutcome> drain(String queue) {
    List<JobOutcome> out = new ArrayList<>();
    for (JobRun run : Drain.run(baton, queue, clock.instant())) {
      out.add(outcomeOf(run));
    }
    return out;
  }

  private static JobOutcome outcomeOf(JobRun run) {
    Outcome outcome =
        switch (run.state()) {
          case COMPLETED -> Outcome.COMPLETED;
          case RETRYABLE -> Outcome.RETRYABLE;
          case DISCARDED -> Outcome.DISCARDED;
          case CANCELLED -> Outcome.CANCELLED;
          case SCHEDULED, AVAILABLE -> Outcome.SNOOZED;
          case RUNNING, PENDING ->
              throw new IllegalStateException(
                  "the outcome of job "
                      + run.id()
                      + " (kind "
                      + run.kind()
                      + ") was not written: another holder took the job while its handler ran"
                      + " (a started client on the same schema?)");
        };
    JobError error = null;
    if (run.job() != null && outcome != Outcome.COMPLETED && outcome != Outcome.SNOOZED) {
      for (JobError e : run.job().errors()) {
        if (e.attempt() == run.attempt()) {
          error = e;
        }
      }
    }
    return new JobOutcome(run.id(), run.kind(), run.attempt(), outcome, error, run.job());
  }

  // ---------------------------------------------------------------- listing

  /** The committed jobs of {@code type}'s kind, newest first. */
  public List<Job> enqueued(Class<? extends JobArgs> type) {
    return enqueued(JobArgs.kindOf(type));
  }

  /** The jobs of {@code type}'s kind visible on {@code connection}, newest first. */
  public List<Job> enqueued(Connection connection, Class<? extends JobArgs> type) {
    return enqueued(connection, JobArgs.kindOf(type));
  }

  /** The committed jobs of {@code kind}, newest first. */
  public List<Job> enqueued(String kind) {
    return admin.list(filter(kind));
  }

  /** The jobs of {@code kind} visible on {@code connection}, newest first. */
  public List<Job> enqueued(Connection connection, String kind) {
    return admin.list(Objects.requireNonNull(connection, "connection"), filter(kind));
  }

  /**
   * The args of {@code job} as {@code type}.
   *
   * @throws AssertionError if they do not map to {@code type}
   */
  public <A extends JobArgs> A args(Job job, Class<A> type) {
    try {
      return mapper.treeToValue(job.args(), type);
    } catch (JsonProcessingException | IllegalArgumentException e) {
      throw new AssertionError(
          "the args of job "
              + job.id()
              + " (kind "
              + job.kind()
              + ") do not map to "
              + type.getName()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  private static JobAdmin.ListFilter filter(String kind) {
    return JobAdmin.ListFilter.of(null, null, kind, JobAdmin.MAX_LIST_LIMIT);
  }

  // ---------------------------------------------------------------- assertions

  /**
   * Asserts that a committed job of {@code type}'s kind has args matching {@code matches}; returns
   * the newest such job.
   */
  public <A extends JobArgs> Job assertEnqueued(Class<A> type, Predicate<? super A> matches) {
    return assertEnqueued(type, (a, job) -> matches.test(a));
  }

  /**
   * Asserts that a committed job of {@code type}'s kind matches {@code matches}, given its args and
   * the job (queue, priority, run-at time, max attempts, idempotency key, metadata: what the
   * enqueue's options made of it); returns the newest such job.
   */
  public <A extends JobArgs> Job assertEnqueued(
      Class<A> type, BiPredicate<? super A, ? super Job> matches) {
    return expectOne(JobArgs.kindOf(type), enqueued(type), typed(type, matches));
  }

  /** Asserts that a committed job of {@code kind} matches {@code matches}; returns the newest. */
  public Job assertEnqueued(String kind, Predicate<? super Job> matches) {
    return expectOne(kind, enqueued(kind), matches);
  }

  /** As {@link #assertEnqueued(Class, Predicate)}, among the jobs visible on {@code connection}. */
  public <A extends JobArgs> Job assertEnqueued(
      Connection connection, Class<A> type, Predicate<? super A> matches) {
    return assertEnqueued(connection, type, (a, job) -> matches.test(a));
  }

  /**
   * As {@link #assertEnqueued(Class, BiPredicate)}, among the jobs visible on {@code connection}.
   */
  public <A extends JobArgs> Job assertEnqueued(
      Connection connection, Class<A> type, BiPredicate<? super A, ? super Job> matches) {
    return expectOne(JobArgs.kindOf(type), enqueued(connection, type), typed(type, matches));
  }

  /**
   * As {@link #assertEnqueued(String, Predicate)}, among the jobs visible on {@code connection}.
   */
  public Job assertEnqueued(Connection connection, String kind, Predicate<? super Job> matches) {
    return expectOne(kind, enqueued(connection, kind), matches);
  }

  /** Asserts that no committed job of {@code type}'s kind exists. */
  public void refuteEnqueued(Class<? extends JobArgs> type) {
    expectNone(JobArgs.kindOf(type), enqueued(type), job -> true);
  }

  /** Asserts that no committed job of {@code type}'s kind has args matching {@code matches}. */
  public <A extends JobArgs> void refuteEnqueued(Class<A> type, Predicate<? super A> matches) {
    expectNone(JobArgs.kindOf(type), enqueued(type), typed(type, (a, job) -> matches.test(a)));
  }

  /** Asserts that no committed job of {@code kind} matches {@code matches}. */
  public void refuteEnqueued(String kind, Predicate<? super Job> matches) {
    expectNone(kind, enqueued(kind), matches);
  }

  /** As {@link #refuteEnqueued(Class)}, among the jobs visible on {@code connection}. */
  public void refuteEnqueued(Connection connection, Class<? extends JobArgs> type) {
    expectNone(JobArgs.kindOf(type), enqueued(connection, type), job -> true);
  }

  /** As {@link #refuteEnqueued(Class, Predicate)}, among the jobs visible on {@code connection}. */
  public <A extends JobArgs> void refuteEnqueued(
      Connection connection, Class<A> type, Predicate<? super A> matches) {
    expectNone(
        JobArgs.kindOf(type), enqueued(connection, type), typed(type, (a, job) -> matches.test(a)));
  }

  /**
   * As {@link #refuteEnqueued(String, Predicate)}, among the jobs visible on {@code connection}.
   */
  public void refuteEnqueued(Connection connection, String kind, Predicate<? super Job> matches) {
    expectNone(kind, enqueued(connection, kind), matches);
  }

  private <A extends JobArgs> Predicate<Job> typed(
      Class<A> type, BiPredicate<? super A, ? super Job> matches) {
    Objects.requireNonNull(matches, "predicate");
    return job -> matches.test(args(job, type), job);
  }

  private Job expectOne(String kind, List<Job> jobs, Predicate<? super Job> matches) {
    Objects.requireNonNull(matches, "predicate");
    for (Job job : jobs) {
      if (matches.test(job)) {
        return job;
      }
    }
    throw new AssertionError(
        jobs.isEmpty()
            ? "expected a job of kind " + kind + " in schema " + admin.schema() + ", found none"
            : "expected a job of kind "
                + kind
                + " matching the predicate in schema "
                + admin.schema()
                + ", but none of its "
                + jobs.size()
                + " jobs matches: "
                + describe(jobs));
  }

  private void expectNone(String kind, List<Job> jobs, Predicate<? super Job> matches) {
    List<Job> matching = jobs.stream().filter(matches).collect(Collectors.toList());
    if (!matching.isEmpty()) {
      throw new AssertionError(
          "expected no job of kind "
              + kind
              + " matching the predicate in schema "
              + admin.schema()
              + ", found "
              + matching.size()
              + ": "
              + describe(matching));
    }
  }

  private static String describe(List<Job> jobs) {
    String shown =
        jobs.stream()
            .limit(SHOWN)
            .map(
                j ->
                    "#"
                        + j.id()
                        + " (queue "
                        + j.queue()
                        + ", "
                        + j.state().dbName()
                        + ", args "
                        + j.args()
                        + ")")
            .collect(Collectors.joining(", "));
    return jobs.size() > SHOWN ? shown + ", and " + (jobs.size() - SHOWN) + " more" : shown;
  }

  private static ObjectMapper defaultMapper() {
    return new ObjectMapper()
        .registerModule(new JavaTimeModule())
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
  }
}
