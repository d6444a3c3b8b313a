package dev.baton.property;

import dev.baton.BatonConfig;
import dev.baton.internal.SettableTime;
import dev.baton.internal.db.AdminStore;
import dev.baton.internal.db.ClaimedJob;
import dev.baton.internal.db.ClusterStore;
import dev.baton.internal.db.EnqueueStore;
import dev.baton.internal.db.Finish;
import dev.baton.internal.db.HolderStore;
import dev.baton.internal.db.Leadership;
import dev.baton.internal.db.MaintenanceStore;
import dev.baton.internal.db.SchemaName;
import dev.baton.property.Step.Meanwhile;
import dev.baton.property.Step.TxEnd;
import dev.baton.property.Step.Writer;
import dev.baton.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import javax.sql.DataSource;

/**
 * Three holders of the same three jobs, driven through the store's statements ({@link HolderStore},
 * {@link MaintenanceStore}) on a fresh schema, next to a model of what each step must do: every
 * claim of each job (its fence and holder), the fence each holder remembers per job, each job's
 * state, attempt, lease and due time, and which jobs are final.
 *
 * <p>Time: the leader compares leases and due times with a {@link SettableTime} that starts at the
 * database's {@code now()} and moves only by {@link #jump}; the database writes leases and delays
 * with its own clock. Every lease and delay the holders write is therefore given as the minutes the
 * clock has jumped so far plus the nominal value, so that, in the leader's time, a lease written
 * after a jump still lasts {@value #LEASE_MINUTES} minutes. All nominal times are multiples of five
 * minutes, so the few seconds of real time a scenario takes never decide a comparison.
 *
 * <p>Each step checks its own outcome (a stale write reports nothing written and leaves the row as
 * it was, compared with a snapshot taken before it; the current holder's write goes through);
 * {@link #checkInvariants()} checks the whole schema after every step.
 */
final class FencingWorld implements AutoCloseable {

  /** Holders of the jobs. */
  static final int HOLDERS = 3;

  /** Max attempts of the jobs, one per job: the last is discarded at its first failure. */
  static final int[] MAX_ATTEMPTS = {20, 3, 1};

  /** Nominal lease of a claim and a heartbeat, in minutes of the leader's clock. */
  static final int LEASE_MINUTES = 60;

  /** Nominal lease extension, in minutes. */
  static final int EXTEND_MINUTES = 90;

  static final String STALE_WRITE = "a holder that lost a job wrote to it";
  static final String STALE_WRITE_ON_RECLAIMED = "... while a newer claim ran it";
  static final String STALE_WRITE_ON_FINAL = "... after it was final";
  static final String STALE_TRANSACTIONAL_COMPLETION = "... in a transactional completion";
  static final String TRANSACTIONAL_COMPLETION_COMMITTED = "transactional completion committed";
  static final String TRANSACTIONAL_COMPLETION_ROLLED_BACK = "transactional completion rolled back";
  static final String RESCUE_SKIPPED_LOCKED_JOB = "rescue skipped an expired job being completed";
  static final String JOB_RESCUED = "a job was rescued";
  static final String JOB_RECLAIMED = "a job was claimed again";
  static final String RUNNING_WITH_OLD_CLAIMS = "checked: a job ran with older claims around";
  static final String RETRY_FOUND_OWN_WRITE = "a retried completion found its own write";

  /** Events a scenario can produce; the property reports how many tries saw each. */
  static final List<String> EVENTS =
      List.of(
          STALE_WRITE,
          STALE_WRITE_ON_RECLAIMED,
          STALE_WRITE_ON_FINAL,
          STALE_TRANSACTIONAL_COMPLETION,
          TRANSACTIONAL_COMPLETION_COMMITTED,
          TRANSACTIONAL_COMPLETION_ROLLED_BACK,
          RESCUE_SKIPPED_LOCKED_JOB,
          JOB_RESCUED,
          JOB_RECLAIMED,
          RUNNING_WITH_OLD_CLAIMS,
          RETRY_FOUND_OWN_WRITE);

  private static final String QUEUE = "fencing";
  // A queue with no jobs, for probes that must claim nothing.
  private static final String EMPTY_QUEUE = "fencing_empty";
  // The kind's timeout: far enough that the deadline never decides a rescue; leases do.
  private static final Duration TIMEOUT = Duration.ofDays(3650);
  // Rows per rescue or schedule statement: more than a scenario has, so one page is all.
  private static final int BATCH = 1_000;
  private static final String[] STALE_STATES = {
    "retryable", "scheduled", "available", "cancelled", "discarded", "completed"
  };

  private final DataSource ds;
  private final String schema;
  private final String quoted;
  private final HolderStore store;
  private final MaintenanceStore maintenance;
  private final SettableTime time;
  private final Leadership lead;
  private final long[] ids;
  private final JobModel[] jobs;
  // Every claim of job j, oldest first, by its fence.
  private final List<List<Long>> issued = new ArrayList<>();
  // The holder of each claim, by its fence.
  private final Map<Long, Integer> claimant = new HashMap<>();
  // held[h][j]: the fence of holder h's latest claim of job j; 0 if it never claimed it.
  private final long[][] held;
  // Each job's row at the last check, to run per-statement probes only on rows that changed.
  private final String[] probedRows;
  private final List<String> steps = new ArrayList<>();
  // What happened in this scenario, for the property's statistics.
  private final Set<String> events = new TreeSet<>();
  private int offsetMinutes;
  private long lastFence;

  /** What the model expects of one job. */
  private static final class JobModel {
    final int maxAttempts;
    String state = "available";
    // The fence and holder of the latest claim (0 and -1 before the first).
    long fence;
    int holder = -1;
    int attempt;
    int rescues;
    boolean cancelRequested;
    // While running: the lease's end, in minutes of the leader's clock.
    int leaseUntil;
    // While scheduled or retryable: due at (rescued: from) this minute, or after it (written with
    // the database clock, which is a few seconds past the leader's at the same offset).
    int dueAt;
    boolean dueAtIncluded;
    // Completions the database reported as written, by any path.
    int completions;
    // Committed side effects of transactional completions.
    int effects;
    // The row once final; it must never change again.
    String finalRow;

    JobModel(int maxAttempts) {
      this.maxAttempts = maxAttempts;
    }

    boolean running() {
      return state.equals("running");
    }

    boolean waiting() {
      return state.equals("available") || state.equals("scheduled") || state.equals("retryable");
    }

    boolean isFinal() {
      return state.equals("completed") || state.equals("cancelled") || state.equals("discarded");
    }

    @Override
    public String toString() {
      return state
          + " fence="
          + fence
          + " holder="
          + holder
          + " attempt="
          + attempt
          + " cancel_requested="
          + cancelRequested;
    }
  }

  /** A row as read: the fields the model predicts, and the whole row as JSON. */
  private record Row(String state, long fence, int attempt, boolean cancelRequested, String json) {
    @Override
    public String toString() {
      return state
          + " fence="
          + fence
          + " attempt="
          + attempt
          + " cancel_requested="
          + cancelRequested;
    }
  }

  /** A fresh migrated schema with three available jobs, a leader on a settable clock, no claims. */
  FencingWorld(DataSource ds) {
    this.ds = ds;
    this.schema = TestDatabase.get().newMigratedSchema();
    SchemaName name = SchemaName.of(schema);
    this.quoted = name.quoted();
    this.store = new HolderStore(name);
    this.maintenance = new MaintenanceStore(name);
    this.ids = new long[MAX_ATTEMPTS.length];
    this.jobs = new JobModel[MAX_ATTEMPTS.length];
    this.held = new long[HOLDERS][MAX_ATTEMPTS.length];
    this.probedRows = new String[MAX_ATTEMPTS.length];
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          "CREATE TABLE "
              + quoted
              + ".effect (job_id bigint NOT NULL, fence bigint NOT NULL, holder int NOT NULL)");
      try (ResultSet rs = st.executeQuery("SELECT now()")) {
        rs.next();
        this.time = new SettableTime(rs.getObject(1, OffsetDateTime.class).toInstant());
      }
      for (int j = 0; j < ids.length; j++) {
        ids[j] =
            new EnqueueStore(name)
                .enqueue(
                    c,
                    new EnqueueStore.NewJob(
                        QUEUE,
                        "fencing_work",
                        "{\"job\":" + j + "}",
                        0,
                        MAX_ATTEMPTS[j],
                        null,
                        null,
                        "{}"))
                .id();
        jobs[j] = new JobModel(MAX_ATTEMPTS[j]);
        issued.add(new ArrayList<>());
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot set up schema " + schema, e);
    }
    long term =
        new ClusterStore(name)
            .elect(ds, Leadership.MAINTENANCE, "fencing-leader", TIMEOUT, time.now());
    if (term < 0) {
      throw new IllegalStateException("another node leads the fresh schema " + schema);
    }
    this.lead = new Leadership(Leadership.MAINTENANCE, "fencing-leader", term);
  }

  /** Runs {@code step} and records it for failure messages. */
  void apply(Step step) {
    steps.add(step.toString());
    step.applyTo(this);
  }

  /** Runs each step and checks the invariants after each. */
  void replay(Step... sequence) {
    for (Step s : sequence) {
      apply(s);
      checkInvariants();
    }
  }

  /** The model's state of job {@code j}. */
  String state(int j) {
    return jobs[j].state;
  }

  /** The holder of job {@code j}'s latest claim, or -1. */
  int latestHolder(int j) {
    return jobs[j].holder;
  }

  /** How many times job {@code j} was claimed. */
  int claims(int j) {
    return issued.get(j).size();
  }

  /** Completions of job {@code j} the database reported as written. */
  int completions(int j) {
    return jobs[j].completions;
  }

  /** Committed side effects of transactional completions of job {@code j}. */
  int effects(int j) {
    return jobs[j].effects;
  }

  /** The interesting things that happened so far (see {@link #EVENTS}). */
  Set<String> events() {
    return events;
  }

  // ---- steps --------------------------------------------------------------------------------

  void claim(int h, int limit) {
    long available = availableCount();
    takeClaims(h, limit, available, store.claim(ds, claimParams(QUEUE, h, limit)));
  }

  void heartbeat(int h) {
    heartbeat(h, -1);
  }

  // A heartbeat while job `locked` is row-locked by an open transactional completion (-1: none).
  private void heartbeat(int h, int locked) {
    List<Integer> js = remembered(h);
    if (js.isEmpty()) {
      return;
    }
    long[] beatIds = new long[js.size()];
    long[] beatFences = new long[js.size()];
    Map<Integer, String> before = new HashMap<>();
    for (int i = 0; i < js.size(); i++) {
      int j = js.get(i);
      beatIds[i] = ids[j];
      beatFences[i] = held[h][j];
      noteWriter(j, held[h][j]);
      if (!isCurrent(j, held[h][j])) {
        before.put(j, row(j));
      }
    }
    HolderStore.Heartbeat beat =
        store.heartbeatIfHeld(
            ds, beatIds, beatFences, Duration.ofMinutes(offsetMinutes + LEASE_MINUTES));
    for (int j : js) {
      long id = ids[j];
      JobModel m = jobs[j];
      if (!isCurrent(j, held[h][j])) {
        check(!beat.held(id), "the heartbeat of h" + h + " held j" + j + " with an old fence");
        checkUnchanged(j, before.get(j), "a stale heartbeat by h" + h);
      } else if (j == locked) {
        check(
            !beat.extended().contains(id) && beat.skipped().contains(id),
            "the heartbeat of h" + h + " should skip j" + j + ", locked by its own transaction");
      } else {
        check(beat.extended().contains(id), "the heartbeat of the holder of j" + j + " failed");
        check(
            beat.cancelRequested().contains(id) == m.cancelRequested,
            "the heartbeat of j" + j + " reported cancel_requested wrongly");
        m.leaseUntil = Math.max(m.leaseUntil, offsetMinutes + LEASE_MINUTES);
      }
    }
  }

  void completeAll(int h) {
    List<Integer> js = remembered(h);
    if (js.isEmpty()) {
      return;
    }
    List<Finish> finishes = new ArrayList<>();
    Map<Integer, String> before = new HashMap<>();
    Set<Integer> current = new TreeSet<>();
    for (int j : js) {
      noteWriter(j, held[h][j]);
      finishes.add(Finish.completed(ids[j], held[h][j]));
      if (isCurrent(j, held[h][j])) {
        current.add(j);
      } else {
        before.put(j, row(j));
      }
    }
    Set<Long> written = store.finishIfHeld(ds, finishes);
    for (int j : js) {
      long f = held[h][j];
      if (written.contains(f)) {
        countCompletion(j);
      }
      if (current.contains(j)) {
        check(written.contains(f), "the batch of h" + h + " could not complete its j" + j);
        jobs[j].state = "completed";
      } else {
        check(
            !written.contains(f),
            "the batch of h" + h + " completed j" + j + " with old fence " + f);
        checkUnchanged(j, before.get(j), "a stale batched completion by h" + h);
      }
    }
  }

  void complete(int j, Writer w) {
    Finish finish = Finish.completed(ids[j], fenceOf(j, w));
    write(
        "complete",
        j,
        w,
        () -> {
          boolean written = finishWritten(finish);
          if (written) {
            countCompletion(j);
          }
          return written;
        },
        () -> jobs[j].state = "completed");
  }

  // A completion retried after a try that failed without an answer: written if its writer holds
  // the job; reported written, with the row unchanged and no second completion, if the job is
  // completed under the writer's own fence (the earlier try landed); otherwise refused.
  void retryComplete(int j, Writer w) {
    JobModel m = jobs[j];
    long f = fenceOf(j, w);
    noteWriter(j, f);
    boolean current = isCurrent(j, f);
    boolean ownWrite = f != 0 && m.state.equals("completed") && m.fence == f;
    String before = row(j);
    Set<Long> written =
        store.finishRetriedIfHeld(ds, List.of(Finish.completed(ids[j], f)), Set.of(f));
    check(written.isEmpty() || written.equals(Set.of(f)), "a retry reported fences " + written);
    if (current) {
      check(!written.isEmpty(), "a retried completion of j" + j + " by its holder was refused");
      countCompletion(j);
      m.state = "completed";
    } else if (ownWrite) {
      events.add(RETRY_FOUND_OWN_WRITE);
      check(!written.isEmpty(), "a retried completion of j" + j + " missed its own write");
      checkUnchanged(j, before, "a retried completion that found its own write");
    } else {
      check(
          written.isEmpty(),
          "a retried completion of j" + j + " with old fence " + f + " was written");
      checkUnchanged(j, before, "a stale retried completion with fence " + f);
    }
  }

  void completeAndClaim(int j, Writer w, int limit) {
    long f = fenceOf(j, w);
    int h = holderOf(j, w);
    noteWriter(j, f);
    boolean current = isCurrent(j, f);
    String before = row(j);
    long available = availableCount();
    HolderStore.CompleteAndClaim r =
        store.completeAndClaim(
            ds, List.of(Finish.completed(ids[j], f)), claimParams(QUEUE, h, limit));
    boolean written = !r.completed().isEmpty();
    if (written) {
      countCompletion(j);
      check(r.completed().equals(Set.of(f)), "completeAndClaim reported fences " + r.completed());
    }
    boolean reclaimed = r.claimed().stream().anyMatch(c -> c.id() == ids[j]);
    if (current) {
      check(written, "the holder h" + h + " of j" + j + " could not complete it (with a claim)");
      jobs[j].state = "completed";
    } else {
      check(!written, "h" + h + " completed j" + j + " (with a claim) with old fence " + f);
      if (!reclaimed) {
        checkUnchanged(j, before, "a stale completion (with a claim) by h" + h);
      }
    }
    takeClaims(h, limit, available, r.claimed());
  }

  void fail(int j, Writer w, int delayMinutes) {
    JobModel m = jobs[j];
    long f = fenceOf(j, w);
    boolean last = m.attempt >= m.maxAttempts;
    String error =
        "{\"attempt\":"
            + m.attempt
            + ",\"error\":\"java.lang.IllegalStateException\",\"message\":\"fencing property\"}";
    Finish finish =
        last
            ? new Finish(ids[j], f, "discarded", null, error, 0, null)
            : new Finish(ids[j], f, "retryable", minutesFromNow(delayMinutes), error, 0, null);
    write(
        "fail",
        j,
        w,
        () -> finishWritten(finish),
        () -> {
          m.state = last ? "discarded" : "retryable";
          m.dueAt = offsetMinutes + delayMinutes;
          m.dueAtIncluded = false;
        });
  }

  void snooze(int j, Writer w, int delayMinutes) {
    JobModel m = jobs[j];
    long f = fenceOf(j, w);
    Finish finish =
        delayMinutes == 0
            ? new Finish(ids[j], f, "available", 0L, null, -1, null)
            : new Finish(
                ids[j], f, "scheduled", minutesFromNow(delayMinutes), null, -1, "{\"snoozes\":1}");
    write(
        "snooze",
        j,
        w,
        () -> finishWritten(finish),
        () -> {
          m.attempt--;
          m.state = delayMinutes == 0 ? "available" : "scheduled";
          m.dueAt = offsetMinutes + delayMinutes;
          m.dueAtIncluded = false;
        });
  }

  void cancelByHolder(int j, Writer w) {
    Finish finish =
        new Finish(
            ids[j],
            fenceOf(j, w),
            "cancelled",
            null,
            "{\"error\":\"cancelled\",\"message\":\"cancelled by its handler\"}",
            0,
            null);
    write("cancel", j, w, () -> finishWritten(finish), () -> jobs[j].state = "cancelled");
  }

  void extend(int j, Writer w) {
    JobModel m = jobs[j];
    long f = fenceOf(j, w);
    write(
        "extend",
        j,
        w,
        () ->
            store.extendIfHeld(
                    ds,
                    ids[j],
                    f,
                    Duration.ofMinutes(offsetMinutes + EXTEND_MINUTES),
                    Duration.ZERO)
                != null,
        () -> m.leaseUntil = Math.max(m.leaseUntil, offsetMinutes + EXTEND_MINUTES));
  }

  void completeIn(int j, Writer w, TxEnd end, Meanwhile meanwhile) {
    JobModel m = jobs[j];
    long f = fenceOf(j, w);
    int h = holderOf(j, w);
    noteWriter(j, f);
    boolean current = isCurrent(j, f);
    if (f != 0 && !current) {
      events.add(STALE_TRANSACTIONAL_COMPLETION);
    }
    String before = row(j);
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      try {
        try (PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO " + quoted + ".effect (job_id, fence, holder) VALUES (?, ?, ?)")) {
          ps.setLong(1, ids[j]);
          ps.setLong(2, f);
          ps.setInt(3, h);
          ps.executeUpdate();
        }
        boolean matched = store.completeIfHeld(c, ids[j], f);
        if (!matched) {
          // ctx.completeIn throws LostBatonException; the handler's transaction rolls back.
          c.rollback();
          check(!current, "the holder h" + h + " of j" + j + " could not complete it in its tx");
          checkUnchanged(j, before, "a stale transactional completion by h" + h);
          return;
        }
        check(current, "h" + h + " completed j" + j + " in its transaction with old fence " + f);
        if (meanwhile == Meanwhile.HEARTBEAT) {
          heartbeat(h, j);
        } else if (meanwhile == Meanwhile.RESCUE) {
          rescue(j);
        }
        if (end == TxEnd.COMMIT) {
          c.commit();
          countCompletion(j);
          m.state = "completed";
          m.effects++;
          events.add(TRANSACTIONAL_COMPLETION_COMMITTED);
        } else {
          c.rollback();
          checkUnchanged(j, before, "a rolled-back transactional completion by h" + h);
          events.add(TRANSACTIONAL_COMPLETION_ROLLED_BACK);
        }
      } finally {
        c.rollback();
        c.setAutoCommit(true);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("transactional completion failed: " + e.getMessage(), e);
    }
  }

  void jump(int minutes) {
    time.advance(Duration.ofMinutes(minutes));
    offsetMinutes += minutes;
  }

  void rescue() {
    rescue(-1);
  }

  // A rescue pass while job `locked` is row-locked by an open transactional completion (-1: none).
  private void rescue(int locked) {
    Set<Long> expected = new TreeSet<>();
    for (int j = 0; j < ids.length; j++) {
      if (jobs[j].running() && offsetMinutes > jobs[j].leaseUntil) {
        if (j == locked) {
          events.add(RESCUE_SKIPPED_LOCKED_JOB);
        } else {
          expected.add(ids[j]);
        }
      }
    }
    if (!expected.isEmpty()) {
      events.add(JOB_RESCUED);
    }
    List<MaintenanceStore.Rescued> got =
        maintenance.rescue(ds, lead, time.dbNow(), BatonConfig.DEFAULT_MAX_RESCUES, BATCH);
    Set<Long> gotIds = new TreeSet<>();
    for (MaintenanceStore.Rescued r : got) {
      gotIds.add(r.id());
    }
    check(
        gotIds.equals(expected),
        "rescue at +"
            + offsetMinutes
            + " min returned "
            + names(gotIds)
            + ", expected "
            + names(expected));
    for (MaintenanceStore.Rescued r : got) {
      JobModel m = jobs[index(r.id())];
      // A lost lease gives the attempt back; the rescue limit, not maxAttempts, discards.
      m.rescues++;
      m.attempt--;
      String state =
          m.cancelRequested
              ? "cancelled"
              : m.rescues >= BatonConfig.DEFAULT_MAX_RESCUES ? "discarded" : "retryable";
      check(
          r.state().equals(state),
          "rescue made " + name(r.id()) + " " + r.state() + ", expected " + state);
      m.state = state;
      m.dueAt = offsetMinutes;
      m.dueAtIncluded = true;
    }
  }

  void schedule() {
    List<JobModel> due = new ArrayList<>();
    for (JobModel m : jobs) {
      boolean waiting = m.state.equals("scheduled") || m.state.equals("retryable");
      boolean isDue = m.dueAtIncluded ? offsetMinutes >= m.dueAt : offsetMinutes > m.dueAt;
      if (waiting && isDue) {
        due.add(m);
      }
    }
    int moved = maintenance.schedule(ds, lead, time.dbNow(), BATCH);
    check(
        moved == due.size(),
        "schedule at +" + offsetMinutes + " min moved " + moved + " jobs, expected " + due.size());
    for (JobModel m : due) {
      m.state = "available";
    }
  }

  void cancel(int j) {
    JobModel m = jobs[j];
    String result = new AdminStore(store.schema()).cancel(ds, ids[j]);
    if (m.waiting()) {
      check("cancelled".equals(result), "cancel of waiting j" + j + " returned " + result);
      m.state = "cancelled";
      m.cancelRequested = true;
    } else if (m.running()) {
      check("running".equals(result), "cancel of running j" + j + " returned " + result);
      m.cancelRequested = true;
    } else {
      check(result == null, "cancel of final j" + j + " returned " + result);
    }
  }

  // ---- invariants ---------------------------------------------------------------------------

  /**
   * Checks the whole schema against the model and tries every write that must change nothing:
   *
   * <ul>
   *   <li>every row matches the model (state, fence, attempt, cancel flag), and a final row never
   *       changes again;
   *   <li>no job was completed twice, and every completed job exactly once; a committed side effect
   *       of a transactional completion exists exactly for jobs completed that way, under the fence
   *       the row was completed with;
   *   <li>a running row's fence is the latest fence of exactly one holder, the one that claimed it
   *       last; it can write (a heartbeat that moves nothing returns the job); every other fence
   *       ever issued, and fence 0, changes nothing with any kind of write on any job.
   * </ul>
   */
  void checkInvariants() {
    Map<Long, Row> rows = readRows();
    for (int j = 0; j < ids.length; j++) {
      Row r = rows.get(ids[j]);
      JobModel m = jobs[j];
      check(r != null, "j" + j + " is gone");
      check(
          r.state().equals(m.state)
              && r.fence() == m.fence
              && r.attempt() == m.attempt
              && r.cancelRequested() == m.cancelRequested,
          "j" + j + " is " + r + " but the model says " + m);
      if (m.isFinal()) {
        if (m.finalRow == null) {
          m.finalRow = r.json();
        } else {
          check(
              r.json().equals(m.finalRow),
              "final j" + j + " changed: " + m.finalRow + " -> " + r.json());
        }
      }
      check(
          m.completions == (m.state.equals("completed") ? 1 : 0),
          "j" + j + " is " + m.state + " after " + m.completions + " accepted completions");
      int owners = 0;
      for (int h = 0; h < HOLDERS; h++) {
        if (held[h][j] != 0 && held[h][j] == r.fence()) {
          owners++;
          check(
              h == m.holder,
              "h" + h + " remembers the fence of j" + j + " claimed by h" + m.holder);
        }
      }
      check(
          !m.running() || owners == 1,
          "running j" + j + " has " + owners + " holders of its fence");
      if (m.running() && issued.get(j).size() > 1) {
        events.add(RUNNING_WITH_OLD_CLAIMS);
      }
    }
    checkEffects(rows);
    probeWrites(rows);
  }

  private void checkEffects(Map<Long, Row> rows) {
    Map<Long, List<Long>> effects = new HashMap<>();
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT job_id, fence FROM " + quoted + ".effect")) {
      while (rs.next()) {
        effects.computeIfAbsent(rs.getLong(1), k -> new ArrayList<>()).add(rs.getLong(2));
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    for (int j = 0; j < ids.length; j++) {
      List<Long> fences = effects.getOrDefault(ids[j], List.of());
      check(
          fences.size() == jobs[j].effects,
          "j" + j + " has committed side effects " + fences + ", expected " + jobs[j].effects);
      for (long f : fences) {
        Row r = rows.get(ids[j]);
        check(
            r.state().equals("completed") && r.fence() == f,
            "a side effect of j" + j + " committed under fence " + f + " but the row is " + r);
      }
    }
  }

  // Tries every fence that is not the running holder's, on every job, with each kind of write;
  // nothing may change. The current holders' heartbeat that moves nothing must return their jobs.
  // What is tried depends only on the rows and fences, never on the step count, so a shrunk
  // sequence fails at the same step as the original.
  private void probeWrites(Map<Long, Row> rows) {
    List<long[]> current = new ArrayList<>();
    // Every fence ever issued, and 0, on every job: batched writes, one statement per kind.
    List<long[]> stale = new ArrayList<>();
    // The job's own old fences, and 0, on the jobs whose row changed since the last check: writes
    // that take one statement each.
    List<long[]> staleOfChanged = new ArrayList<>();
    Set<Long> allFences = new TreeSet<>(claimant.keySet());
    allFences.add(0L);
    for (int j = 0; j < ids.length; j++) {
      Row r = rows.get(ids[j]);
      boolean running = r.state().equals("running");
      if (running) {
        current.add(new long[] {ids[j], r.fence()});
      }
      boolean changed = !r.json().equals(probedRows[j]);
      probedRows[j] = r.json();
      for (long f : allFences) {
        if (running && f == r.fence()) {
          continue;
        }
        stale.add(new long[] {ids[j], f});
        if (changed && (f == 0 || issued.get(j).contains(f))) {
          staleOfChanged.add(new long[] {ids[j], f});
        }
      }
    }
    String before = allRows(rows);

    if (!current.isEmpty()) {
      HolderStore.Heartbeat beat =
          store.heartbeatIfHeld(ds, column(current, 0), column(current, 1), Duration.ZERO);
      for (long[] p : current) {
        check(
            beat.extended().contains(p[0]),
            "the current holder of " + name(p[0]) + " cannot write");
      }
    }

    List<Finish> completions = new ArrayList<>();
    List<Finish> finishes = new ArrayList<>();
    for (long[] p : stale) {
      completions.add(Finish.completed(p[0], p[1]));
      for (String state : STALE_STATES) {
        finishes.add(staleFinish(p[0], p[1], state));
      }
    }
    Set<Long> written = store.finishIfHeld(ds, completions);
    check(written.isEmpty(), "completions with old fences were written: " + written);
    written = store.finishIfHeld(ds, finishes);
    check(written.isEmpty(), "finishes with old fences were written: " + written);
    // Retried, the same writes change nothing either; a completion reports written exactly when
    // its job is completed under its fence (the earlier try of that holder landed).
    Set<Long> staleFences = new HashSet<>();
    Set<Long> ownWrites = new HashSet<>();
    for (long[] p : stale) {
      staleFences.add(p[1]);
      Row r = rows.get(p[0]);
      if (p[1] != 0 && r.state().equals("completed") && r.fence() == p[1]) {
        ownWrites.add(p[1]);
      }
    }
    written = store.finishRetriedIfHeld(ds, completions, staleFences);
    check(
        written.equals(ownWrites),
        "retried completions with old fences reported " + written + ", expected " + ownWrites);
    written = store.finishRetriedIfHeld(ds, finishes, staleFences);
    check(
        written.equals(ownWrites),
        "retried finishes with old fences reported " + written + ", expected " + ownWrites);
    HolderStore.CompleteAndClaim r =
        store.completeAndClaim(ds, completions, claimParams(EMPTY_QUEUE, 0, 1));
    check(
        r.completed().isEmpty() && r.claimed().isEmpty(),
        "completions with old fences were written with a claim: " + r.completed());
    HolderStore.Heartbeat beat =
        store.heartbeatIfHeld(ds, column(stale, 0), column(stale, 1), Duration.ofDays(1));
    check(
        beat.extended().isEmpty() && beat.skipped().isEmpty(),
        "heartbeats with old fences held " + beat.extended() + " " + beat.skipped());

    probeCompleteIn(staleOfChanged);
    for (long[] p : staleOfChanged) {
      Instant deadline = store.extendIfHeld(ds, p[0], p[1], Duration.ofDays(1), Duration.ZERO);
      check(
          deadline == null,
          "an extension of " + name(p[0]) + " with old fence " + p[1] + " was written");
    }
    String after = allRows(readRows());
    check(
        after.equals(before),
        "writes with old fences changed rows:\nbefore " + before + "\nafter  " + after);
  }

  private void probeCompleteIn(List<long[]> pairs) {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      try {
        for (long[] p : pairs) {
          check(
              !store.completeIfHeld(c, p[0], p[1]),
              "a transactional completion of "
                  + name(p[0])
                  + " with old fence "
                  + p[1]
                  + " matched");
        }
        c.commit();
      } finally {
        c.rollback();
        c.setAutoCommit(true);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Finish staleFinish(long id, long fence, String state) {
    return switch (state) {
      case "retryable" -> new Finish(id, fence, state, 1_000L, "{\"error\":\"stale\"}", 0, null);
      case "scheduled" -> new Finish(id, fence, state, 60_000L, null, -1, "{\"snoozes\":1}");
      case "available" -> new Finish(id, fence, state, 0L, null, -1, null);
      case "cancelled", "discarded" ->
          new Finish(id, fence, state, null, "{\"error\":\"stale\"}", 0, null);
      default -> Finish.completed(id, fence);
    };
  }

  // ---- helpers ------------------------------------------------------------------------------

  private interface Write {
    boolean run();
  }

  // A write by `w` on job j: the current holder's goes through (then `accepted` updates the
  // model); any other reports nothing written and leaves the row exactly as it was.
  private void write(String what, int j, Writer w, Write write, Runnable accepted) {
    long f = fenceOf(j, w);
    noteWriter(j, f);
    boolean current = isCurrent(j, f);
    String before = row(j);
    boolean written = write.run();
    if (current) {
      check(written, what + " of j" + j + " by its holder h" + holderOf(j, w) + " was refused");
      accepted.run();
    } else {
      check(!written, what + " of j" + j + " with old fence " + f + " was written");
      checkUnchanged(j, before, "a stale " + what + " with fence " + f);
    }
  }

  // The fence `w` writes to job j with.
  private long fenceOf(int j, Writer w) {
    List<Long> fences = issued.get(j);
    int n = fences.size();
    return switch (w) {
      case LATEST -> n > 0 ? fences.get(n - 1) : 0;
      case PREVIOUS -> n > 1 ? fences.get(n - 2) : 0;
      case NEVER -> 0;
    };
  }

  // The holder `w` names for job j: the one that made the claim, else one that never claimed it.
  private int holderOf(int j, Writer w) {
    long f = fenceOf(j, w);
    if (f != 0) {
      return claimant.get(f);
    }
    for (int h = 0; h < HOLDERS; h++) {
      if (held[h][j] == 0) {
        return h;
      }
    }
    return 0;
  }

  // Whether a write to job j with fence f is its current holder's.
  private boolean isCurrent(int j, long f) {
    JobModel m = jobs[j];
    return m.running() && f != 0 && f == m.fence;
  }

  // The jobs holder h has claimed.
  private List<Integer> remembered(int h) {
    List<Integer> js = new ArrayList<>();
    for (int j = 0; j < ids.length; j++) {
      if (held[h][j] != 0) {
        js.add(j);
      }
    }
    return js;
  }

  // Records what kind of stale write a write to job j with fence f is.
  private void noteWriter(int j, long f) {
    if (f == 0 || isCurrent(j, f)) {
      return;
    }
    events.add(STALE_WRITE);
    if (jobs[j].running()) {
      events.add(STALE_WRITE_ON_RECLAIMED);
    }
    if (jobs[j].isFinal()) {
      events.add(STALE_WRITE_ON_FINAL);
    }
  }

  private boolean finishWritten(Finish finish) {
    Set<Long> written = store.finishIfHeld(ds, List.of(finish));
    check(
        written.isEmpty() || written.equals(Set.of(finish.fence())),
        "a finish reported fences " + written);
    return !written.isEmpty();
  }

  private void countCompletion(int j) {
    JobModel m = jobs[j];
    m.completions++;
    check(m.completions == 1, "j" + j + " was completed " + m.completions + " times");
  }

  private void takeClaims(int h, int limit, long available, List<ClaimedJob> got) {
    check(
        got.size() == Math.min(limit, available),
        "h"
            + h
            + " claimed "
            + got.size()
            + " jobs with limit "
            + limit
            + " while "
            + available
            + " were available");
    for (ClaimedJob c : got) {
      int j = index(c.id());
      JobModel m = jobs[j];
      check(m.state.equals("available"), "h" + h + " claimed j" + j + ", which was " + m.state);
      check(
          c.fence() > lastFence, "fence " + c.fence() + " of j" + j + " is not above " + lastFence);
      lastFence = c.fence();
      if (!issued.get(j).isEmpty()) {
        events.add(JOB_RECLAIMED);
      }
      issued.get(j).add(c.fence());
      claimant.put(c.fence(), h);
      m.attempt++;
      check(
          c.attempt() == m.attempt,
          "j" + j + " was claimed with attempt " + c.attempt() + ", expected " + m.attempt);
      check(
          c.cancelRequested() == m.cancelRequested,
          "j" + j + " was claimed with a wrong cancel flag");
      m.state = "running";
      m.fence = c.fence();
      m.holder = h;
      m.leaseUntil = offsetMinutes + LEASE_MINUTES;
      held[h][j] = c.fence();
    }
  }

  private long availableCount() {
    long n = 0;
    for (JobModel m : jobs) {
      if (m.state.equals("available")) {
        n++;
      }
    }
    return n;
  }

  private HolderStore.ClaimParams claimParams(String queue, int h, int limit) {
    return new HolderStore.ClaimParams(
        queue,
        limit,
        "h" + h,
        Duration.ofMinutes(offsetMinutes + LEASE_MINUTES),
        new String[0],
        new Long[0],
        TIMEOUT);
  }

  // A delay written with the database clock that ends `minutes` after the leader's clock.
  private long minutesFromNow(int minutes) {
    return Duration.ofMinutes(offsetMinutes + minutes).toMillis();
  }

  private void checkUnchanged(int j, String before, String what) {
    String after = row(j);
    check(
        after.equals(before),
        what + " changed j" + j + ":\nbefore " + before + "\nafter  " + after);
  }

  private void check(boolean ok, String message) {
    if (!ok) {
      throw new AssertionError(message + "\nsteps: " + steps);
    }
  }

  private int index(long id) {
    for (int j = 0; j < ids.length; j++) {
      if (ids[j] == id) {
        return j;
      }
    }
    throw new AssertionError("job " + id + " is not one of " + Arrays.toString(ids));
  }

  private String name(long id) {
    return "j" + index(id);
  }

  private String names(Set<Long> idSet) {
    List<String> out = new ArrayList<>();
    for (long id : idSet) {
      out.add(name(id));
    }
    return out.toString();
  }

  private static long[] column(List<long[]> pairs, int c) {
    long[] out = new long[pairs.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = pairs.get(i)[c];
    }
    return out;
  }

  private String row(int j) {
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT row_to_json(j)::text FROM " + quoted + ".job j WHERE id = ?")) {
      ps.setLong(1, ids[j]);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : "<no row>";
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private Map<Long, Row> readRows() {
    Map<Long, Row> out = new LinkedHashMap<>();
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT id, state, fence, attempt,"
                    + " metadata ->> 'cancel_requested_at' IS NOT NULL, row_to_json(j)::text"
                    + " FROM "
                    + quoted
                    + ".job j ORDER BY id")) {
      while (rs.next()) {
        out.put(
            rs.getLong(1),
            new Row(
                rs.getString(2), rs.getLong(3), rs.getInt(4), rs.getBoolean(5), rs.getString(6)));
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return out;
  }

  private static String allRows(Map<Long, Row> rows) {
    StringBuilder b = new StringBuilder();
    for (Row r : rows.values()) {
      b.append(r.json()).append('\n');
    }
    return b.toString();
  }

  /** Drops the schema. */
  @Override
  public void close() {
    TestDatabase.get().execute("DROP SCHEMA IF EXISTS " + quoted + " CASCADE");
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("FencingWorld[+" + offsetMinutes + " min");
    for (int j = 0; j < ids.length; j++) {
      b.append(", j").append(j).append(": ").append(jobs[j]);
    }
    return b.append(']').toString();
  }
}
