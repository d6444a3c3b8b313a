package dev.baton.internal.maintenance;

import com.cronutils.model.time.ExecutionTime;
import dev.baton.MissedRuns;
import dev.baton.internal.TimeSource;
import dev.baton.internal.db.Db;
import dev.baton.internal.db.EnqueueStore;
import dev.baton.internal.db.JobRow;
import dev.baton.internal.db.Leadership;
import dev.baton.internal.db.MaintenanceStore;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Enqueues the runs of periodic jobs as they fall due. Leader only.
 *
 * <p>Each schedule is handled in one transaction that first share-locks the leader row (so it is
 * fenced by the term for its whole length), then locks the schedule's row in {@code periodic},
 * enqueues the runs due since {@code last_due_at}, and moves {@code last_due_at} on. Each run's
 * idempotency key is {@code baton:periodic:<name>:<due time>}: even two leaders, or a transaction
 * retried after a lost commit acknowledgement, cannot enqueue one due time twice.
 *
 * <p>A due time at most the schedule's late tolerance old runs normally, each once: a leader change
 * takes far less. Older due times were missed while no leader was up, and follow the schedule's
 * {@link MissedRuns} policy. A schedule seen for the first time starts from now.
 *
 * <p>Settings: interval {@code maintenanceInterval} (1 s); at most {@value #MAX_RUNS_PER_PASS} runs
 * per schedule per pass. Not public API.
 */
public final class PeriodicEnqueuer implements MaintenanceService {
  private static final Logger log = LoggerFactory.getLogger(PeriodicEnqueuer.class);

  /** Most runs of one schedule enqueued in one pass; the rest follow in the next. */
  public static final int MAX_RUNS_PER_PASS = 1_000;

  /**
   * When a periodic job runs.
   *
   * @param expression the cron expression, as stored with the schedule's state
   * @param executionTime its due times
   * @param zone the zone they are in
   */
  public record Cron(String expression, ExecutionTime executionTime, ZoneId zone) {}

  /** One periodic job, resolved: its schedule and the job each run enqueues. */
  public record Schedule(
      String name,
      Cron cron,
      MissedRuns missedRuns,
      Duration lateTolerance,
      EnqueueStore.NewJob template) {

    String expression() {
      return cron.expression();
    }

    ExecutionTime executionTime() {
      return cron.executionTime();
    }

    ZoneId zone() {
      return cron.zone();
    }
  }

  /** The runs of one pass: which due times to enqueue, and where the schedule then stands. */
  record Plan(List<Instant> fire, Instant handledUpTo) {}

  private final DataSource dataSource;
  private final MaintenanceStore maintenance;
  private final EnqueueStore jobs;
  private final TimeSource time;
  private final List<Schedule> schedules;

  /** An enqueuer of {@code schedules}. */
  public PeriodicEnqueuer(
      DataSource dataSource,
      MaintenanceStore maintenance,
      EnqueueStore jobs,
      TimeSource time,
      List<Schedule> schedules) {
    this.dataSource = dataSource;
    this.maintenance = maintenance;
    this.jobs = jobs;
    this.time = time;
    this.schedules = List.copyOf(schedules);
  }

  @Override
  public String name() {
    return "periodic";
  }

  /** One pass over every schedule. Returns how many runs were enqueued. */
  @Override
  public int runOnce(Leadership lead) {
    int total = 0;
    for (Schedule s : schedules) {
      total += runSchedule(lead, s);
    }
    return total;
  }

  private int runSchedule(Leadership lead, Schedule s) {
    return Db.inExplicitTransaction(
        dataSource,
        "cannot enqueue periodic job " + s.name(),
        c -> {
          Instant now = maintenance.lockLead(c, lead, time.dbNow());
          MaintenanceStore.PeriodicState state = maintenance.lockPeriodic(c, s.name());
          if (state == null || !state.schedule().equals(s.expression())) {
            // Whole seconds: cron due times have no fraction (cron-utils 9.2.1 would otherwise
            // carry the fraction of this moment into every due time of a "* * * * * *" schedule).
            Instant from = now.truncatedTo(ChronoUnit.SECONDS);
            maintenance.savePeriodic(c, s.name(), s.expression(), from, null, now);
            log.info(
                "periodic job {} (\"{}\") {}; first run after {}",
                s.name(),
                s.expression(),
                state == null ? "registered" : "changed schedule",
                now);
            return 0;
          }
          Plan plan = plan(s, state.lastDueAt(), now);
          Long lastJob = state.lastJobId();
          for (Instant due : plan.fire()) {
            lastJob = enqueue(c, s, due).id();
          }
          if (!plan.handledUpTo().equals(state.lastDueAt())) {
            maintenance.savePeriodic(c, s.name(), s.expression(), plan.handledUpTo(), lastJob, now);
          }
          if (!plan.fire().isEmpty()) {
            log.info("enqueued {} runs of periodic job {}", plan.fire().size(), s.name());
          }
          return plan.fire().size();
        });
  }

  private JobRow enqueue(Connection c, Schedule s, Instant due) throws java.sql.SQLException {
    EnqueueStore.NewJob t = s.template();
    String meta = t.metadata();
    String extra = "\"periodic\":" + quote(s.name()) + ",\"due_at\":\"" + due + "\"";
    meta =
        "{}".equals(meta.trim())
            ? "{" + extra + "}"
            : meta.trim().replaceFirst("}$", "," + extra + "}");
    return jobs.enqueue(
        c,
        new EnqueueStore.NewJob(
            t.queue(),
            t.kind(),
            t.args(),
            t.priority(),
            t.maxAttempts(),
            null,
            key(s.name(), due),
            meta));
  }

  /** The idempotency key of the run of {@code name} due at {@code due}. */
  public static String key(String name, Instant due) {
    return "baton:periodic:" + name + ":" + due;
  }

  /**
   * Which due times in {@code (last, now]} to enqueue, and up to which due time the schedule is
   * then handled.
   */
  static Plan plan(Schedule s, Instant last, Instant now) {
    Instant boundary = now.minus(s.lateTolerance());
    List<Instant> fire = new ArrayList<>();
    Instant handled = last;
    // Due times before the boundary were missed: the latest of them stands for all.
    Instant latestMissed = null;
    if (boundary.isAfter(last)) {
      Optional<ZonedDateTime> prev = s.executionTime().lastExecution(zoned(boundary, s.zone()));
      if (prev.isPresent() && prev.get().toInstant().isAfter(last)) {
        latestMissed = prev.get().toInstant();
      }
    }
    if (latestMissed != null) {
      if (s.missedRuns() == MissedRuns.CATCH_UP_ONCE) {
        fire.add(latestMissed);
      }
      handled = latestMissed;
    }
    // Due times from the boundary to now run, each once.
    Instant from = handled.isAfter(boundary) ? handled : boundary.minusNanos(1);
    if (!from.isAfter(handled)) {
      from = handled;
    }
    ZonedDateTime cursor = zoned(from.truncatedTo(ChronoUnit.SECONDS), s.zone());
    while (fire.size() < MAX_RUNS_PER_PASS) {
      Optional<ZonedDateTime> next = s.executionTime().nextExecution(cursor);
      if (next.isEmpty() || next.get().toInstant().isAfter(now)) {
        break;
      }
      Instant due = next.get().toInstant();
      if (due.isAfter(handled)) {
        fire.add(due);
        handled = due;
      }
      cursor = next.get();
    }
    return new Plan(fire, handled);
  }

  private static ZonedDateTime zoned(Instant t, ZoneId zone) {
    return ZonedDateTime.ofInstant(t, zone);
  }

  private static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
