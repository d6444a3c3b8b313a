package dev.baton.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testing.ChildProcess;
import dev.baton.testing.PeriodicNodeMain;
import dev.baton.testing.TestDatabase;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * A periodic job across a leader kill runs exactly once per due time. Three child JVMs ({@link
 * PeriodicNodeMain}) register the same every-second periodic job and work its queue; the leader is
 * SIGKILLed while it leads; another node is elected when the dead leader's lease runs out and
 * enqueues, late, the due times that fell while no node led, then goes on. Over the whole window:
 * one job per due time (no duplicate, whichever node enqueued it), no missing due time, each key as
 * documented, and each run's handler executed once (a second execution only for a run the killed
 * node was executing, re-run after its lease expired).
 */
class PeriodicJobAcrossLeaderKillIT {
  private static final String CRON = "* * * * * *";
  private static final Duration STEP = Duration.ofSeconds(1);
  // The election steps every third of the TTL; the dead leader's row expires at most one TTL after
  // its last renewal, so the gap without a leader is about 1.3 to 2.7 s: at least one due time
  // falls into it whatever the phase of the kill.
  private static final Duration LEADER_TTL = Duration.ofSeconds(2);
  private static final Duration MAINTENANCE_INTERVAL = Duration.ofMillis(100);
  private static final Duration LEASE = Duration.ofSeconds(2);
  private static final int NODES = 3;
  private static final int RUNS_BEFORE_KILL = 3;
  private static final int RUNS_AFTER_FAILOVER = 3;

  /** One run's job row, as the test reads it. */
  record RunJob(
      long id,
      Instant due,
      String key,
      String enqueuedBy,
      String state,
      int attempt,
      String attemptedBy,
      Instant createdAt,
      String errors,
      int rescueCount) {}

  /** One execution of the handler, as {@link PeriodicNodeMain} records it. */
  record Execution(long jobId, Instant due, int attempt, long fence, String node) {}

  @Test
  void periodicJobRunsExactlyOncePerDueTimeAcrossALeaderKill() throws Exception {
    TestDatabase db = TestDatabase.get();
    String schema = db.newMigratedSchema();
    PeriodicNodeMain.createRunTable(db, schema);
    DataSource admin = db.admin();
    long pid = ProcessHandle.current().pid();

    List<ChildProcess> nodes = new ArrayList<>();
    try {
      for (int i = 1; i <= NODES; i++) {
        nodes.add(startNode(db.jdbcUrl(), schema, "periodic-" + pid + "-" + i));
      }
      for (ChildProcess n : nodes) {
        await(n.name() + " ready")
            .atMost(Duration.ofSeconds(30))
            .until(() -> n.line("ready ").isPresent() || !n.isAlive());
        assertThat(n.isAlive()).as(n::describe).isTrue();
      }

      // Runs before the kill, enqueued by the first leader.
      await("first " + RUNS_BEFORE_KILL + " runs enqueued")
          .atMost(Duration.ofSeconds(20))
          .until(() -> jobs(admin, schema).size() >= RUNS_BEFORE_KILL);
      Leader first = leader(admin, schema).orElseThrow();
      ChildProcess victim =
          nodes.stream()
              .filter(n -> n.name().equals(first.nodeId()))
              .findFirst()
              .orElseThrow(() -> new AssertionError("leader " + first + " is none of the nodes"));

      // Kill halfway between two due times, so the run due last has most likely been enqueued and
      // executed already; a run the victim is executing anyway is accounted for below. (The phase
      // is taken from a due time, not from whole seconds: due times need not fall on them.)
      Instant phaseOrigin = jobs(admin, schema).get(0).due();
      await("halfway between two due times")
          .atMost(Duration.ofSeconds(2))
          .pollInterval(Duration.ofMillis(5))
          .until(
              () -> {
                long ms = Duration.between(phaseOrigin, dbNow(admin)).toMillis() % STEP.toMillis();
                return ms >= 400 && ms < 700;
              });
      Instant killedAt = dbNow(admin);
      victim.killHard();
      List<ChildProcess> survivors =
          nodes.stream().filter(n -> n != victim).collect(Collectors.toList());

      await("another node elected")
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  leader(admin, schema)
                      .filter(l -> l.term() > first.term() && !l.nodeId().equals(victim.name()))
                      .isPresent());
      Leader second = leader(admin, schema).orElseThrow();

      // The pause under test: due times keep falling after the failover.
      Instant goOnUntil = second.electedAt().plus(STEP.multipliedBy(RUNS_AFTER_FAILOVER));
      await("runs due up to " + goOnUntil + " enqueued")
          .atMost(Duration.ofSeconds(20))
          .until(
              () -> lastDue(jobs(admin, schema)).filter(d -> !d.isBefore(goOnUntil)).isPresent());
      Instant cutoff = lastDue(jobs(admin, schema)).orElseThrow();

      // Every run up to the cutoff completes, including one the victim held (rescued after LEASE).
      await("runs due up to " + cutoff + " completed")
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  jobs(admin, schema).stream()
                      .filter(j -> !j.due().isAfter(cutoff))
                      .allMatch(j -> j.state().equals("completed")));

      for (ChildProcess n : survivors) {
        n.send("stop");
      }
      for (ChildProcess n : survivors) {
        assertThat(n.awaitExit(Duration.ofSeconds(20))).as(n::describe).isZero();
      }

      List<RunJob> jobs = jobs(admin, schema);
      List<Execution> executions = executions(admin, schema);
      Instant lastDueAt = lastDueAt(admin, schema);
      String report =
          report(jobs, executions, first, second, victim.name(), killedAt, cutoff, lastDueAt);
      System.out.println(report);
      String context =
          report
              + "\n"
              + nodes.stream().map(ChildProcess::describe).collect(Collectors.joining("\n"));

      // The window spans the kill: runs before it, and after the new leader took over.
      assertThat(jobs).as(context).isNotEmpty();
      assertThat(jobs).as("due times fall on whole seconds").allMatch(j -> j.due().getNano() == 0);
      Instant firstDue = jobs.get(0).due();
      assertThat(jobs.stream().filter(j -> j.due().isBefore(killedAt)).count())
          .as("runs due before the kill\n" + context)
          .isGreaterThanOrEqualTo(RUNS_BEFORE_KILL);
      assertThat(jobs.stream().filter(j -> j.due().isAfter(second.electedAt())).count())
          .as("runs due after the new leader's election\n" + context)
          .isGreaterThanOrEqualTo(RUNS_AFTER_FAILOVER);

      // No duplicate: one job per due time, with the documented key.
      Map<Instant, List<RunJob>> byDue = new TreeMap<>();
      jobs.forEach(j -> byDue.computeIfAbsent(j.due(), d -> new ArrayList<>()).add(j));
      Map<Instant, List<Long>> duplicates = new TreeMap<>();
      byDue.forEach(
          (due, js) -> {
            if (js.size() > 1) {
              duplicates.put(due, js.stream().map(RunJob::id).collect(Collectors.toList()));
            }
          });
      assertThat(duplicates).as("due times with more than one job\n" + context).isEmpty();
      for (RunJob j : jobs) {
        assertThat(j.key())
            .as("key of job " + j.id() + "\n" + context)
            .isEqualTo("baton:periodic:" + PeriodicNodeMain.JOB_NAME + ":" + j.due());
      }

      // No gap: every due time from the first to the last, including those without a leader.
      List<Instant> missing = new ArrayList<>();
      for (Instant d = firstDue; !d.isAfter(lastDue(jobs).orElseThrow()); d = d.plus(STEP)) {
        if (!byDue.containsKey(d)) {
          missing.add(d);
        }
      }
      assertThat(missing).as("due times without a job\n" + context).isEmpty();
      assertThat(lastDueAt)
          .as("periodic.last_due_at vs the last due time enqueued\n" + context)
          .isEqualTo(lastDue(jobs).orElseThrow());

      // The failover was exercised: due times fell while no node led, and the new leader enqueued
      // them late.
      List<RunJob> leaderless =
          jobs.stream()
              .filter(j -> j.due().isAfter(killedAt) && j.due().isBefore(second.electedAt()))
              .collect(Collectors.toList());
      assertThat(leaderless).as("runs due while no node led\n" + context).isNotEmpty();
      assertThat(leaderless)
          .as("runs due while no node led are enqueued by the new leader\n" + context)
          .allMatch(j -> second.nodeId().equals(j.enqueuedBy()));

      // Each run's handler executed once. The only exception: a run the victim was executing when
      // it died (recorded, not yet completed) is rescued when its lease expires and runs again.
      Map<Long, List<Execution>> byJob = new TreeMap<>();
      executions.forEach(e -> byJob.computeIfAbsent(e.jobId(), id -> new ArrayList<>()).add(e));
      List<String> wrong = new ArrayList<>();
      for (RunJob j : jobs) {
        List<Execution> es = byJob.getOrDefault(j.id(), List.of());
        boolean mustHaveRun = !j.due().isAfter(cutoff);
        if (mustHaveRun && !j.state().equals("completed")) {
          wrong.add("job " + j.id() + " due " + j.due() + " is " + j.state());
        }
        for (Execution e : es) {
          if (!e.due().equals(j.due())) {
            wrong.add("execution " + e + " records another due time than job " + j.id());
          }
        }
        boolean once = es.size() == 1 && es.get(0).attempt() == j.attempt();
        boolean rerunAfterKill =
            es.size() == 2
                && es.get(0).attempt() == 1
                && es.get(0).node().equals(victim.name())
                && es.get(1).attempt() == 2
                && j.attempt() == 2
                && j.rescueCount() == 1
                && j.errors().contains("lease_expired");
        boolean notYet = es.isEmpty() && !mustHaveRun;
        if (!once && !rerunAfterKill && !notYet) {
          wrong.add("job " + j.id() + " due " + j.due() + " (" + j + ") executions " + es);
        }
      }
      Set<Long> jobIds = jobs.stream().map(RunJob::id).collect(Collectors.toSet());
      assertThat(byJob.keySet())
          .as("executions of jobs that are not runs of the periodic job\n" + context)
          .isSubsetOf(jobIds);
      assertThat(wrong).as("runs not executed exactly once\n" + context).isEmpty();
    } finally {
      for (ChildProcess n : nodes) {
        n.close();
      }
    }
  }

  private static String report(
      List<RunJob> jobs,
      List<Execution> executions,
      Leader first,
      Leader second,
      String victim,
      Instant killedAt,
      Instant cutoff,
      Instant lastDueAt) {
    StringBuilder sb = new StringBuilder();
    sb.append("periodic job \"").append(CRON).append("\" across a leader kill\n");
    sb.append(String.format("  first leader   %s (term %d)%n", first.nodeId(), first.term()));
    sb.append(String.format("  killed at      %s (SIGKILL of %s)%n", killedAt, victim));
    sb.append(
        String.format(
            "  new leader     %s (term %d) elected at %s: %d ms without a leader%n",
            second.nodeId(),
            second.term(),
            second.electedAt(),
            Duration.between(killedAt, second.electedAt()).toMillis()));
    Optional<RunJob> lastOld =
        jobs.stream().filter(j -> first.nodeId().equals(j.enqueuedBy())).reduce((a, b) -> b);
    Optional<RunJob> firstNew =
        jobs.stream().filter(j -> second.nodeId().equals(j.enqueuedBy())).findFirst();
    if (lastOld.isPresent() && firstNew.isPresent()) {
      sb.append(
          String.format(
              "  last run enqueued by the old leader due %s, first by the new leader due %s,"
                  + " enqueued %d ms late%n",
              lastOld.get().due(),
              firstNew.get().due(),
              Duration.between(firstNew.get().due(), firstNew.get().createdAt()).toMillis()));
    }
    sb.append(
        String.format(
            "  cutoff (all runs due up to it must have run) %s; periodic.last_due_at %s%n",
            cutoff, lastDueAt));
    sb.append(
        String.format(
            "  %-24s %6s %-22s %8s %-22s %7s %-9s %s%n",
            "due",
            "job",
            "enqueued by",
            "late ms",
            "run by (last attempt)",
            "attempt",
            "state",
            "executions (attempt@node)"));
    Map<Long, List<Execution>> byJob = new TreeMap<>();
    executions.forEach(e -> byJob.computeIfAbsent(e.jobId(), id -> new ArrayList<>()).add(e));
    TreeSet<Instant> dues = new TreeSet<>();
    for (RunJob j : jobs) {
      dues.add(j.due());
      String marks =
          (j.due().isAfter(killedAt) && j.due().isBefore(second.electedAt()) ? " <- no leader" : "")
              + (j.due().isAfter(cutoff) ? " (after cutoff)" : "");
      sb.append(
          String.format(
              "  %-24s %6d %-22s %8d %-22s %7d %-9s %s%s%n",
              j.due(),
              j.id(),
              j.enqueuedBy(),
              Duration.between(j.due(), j.createdAt()).toMillis(),
              j.attemptedBy(),
              j.attempt(),
              j.state(),
              byJob.getOrDefault(j.id(), List.of()).stream()
                  .map(e -> e.attempt() + "@" + e.node())
                  .collect(Collectors.joining(", ")),
              marks));
    }
    sb.append(
        String.format(
            "  %d jobs for %d distinct due times, %d executions%n",
            jobs.size(), dues.size(), executions.size()));
    return sb.toString();
  }

  /** The maintenance leader row. */
  record Leader(String nodeId, long term, Instant electedAt) {}

  private static Optional<Leader> leader(DataSource ds, String schema) throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT leader_id, term, elected_at FROM \""
                    + schema
                    + "\".leader WHERE role = 'maintenance'");
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        return Optional.empty();
      }
      return Optional.of(
          new Leader(rs.getString(1), rs.getLong(2), rs.getTimestamp(3).toInstant()));
    }
  }

  private static Instant dbNow(DataSource ds) throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT clock_timestamp()");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getTimestamp(1).toInstant();
    }
  }

  private static Instant lastDueAt(DataSource ds, String schema) throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT last_due_at FROM \"" + schema + "\".periodic WHERE name = ?")) {
      ps.setString(1, PeriodicNodeMain.JOB_NAME);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).as("periodic row of " + PeriodicNodeMain.JOB_NAME).isTrue();
        return rs.getTimestamp(1).toInstant();
      }
    }
  }

  private static Optional<Instant> lastDue(List<RunJob> jobs) {
    return jobs.stream().map(RunJob::due).max(Instant::compareTo);
  }

  /** Every job of the periodic job, by due time (then id). */
  private static List<RunJob> jobs(DataSource ds, String schema) throws SQLException {
    List<RunJob> out = new ArrayList<>();
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT id, metadata ->> 'due_at', idempotency_key, metadata ->> ?, state::text,"
                    + " attempt, attempted_by, created_at, errors::text,"
                    + " coalesce((metadata ->> 'rescue_count')::int, 0)"
                    + " FROM \""
                    + schema
                    + "\".job WHERE metadata ->> 'periodic' = ?"
                    + " ORDER BY (metadata ->> 'due_at')::timestamptz, id")) {
      ps.setString(1, PeriodicNodeMain.REGISTERED_BY);
      ps.setString(2, PeriodicNodeMain.JOB_NAME);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(
              new RunJob(
                  rs.getLong(1),
                  Instant.parse(rs.getString(2)),
                  rs.getString(3),
                  rs.getString(4),
                  rs.getString(5),
                  rs.getInt(6),
                  rs.getString(7),
                  instant(rs.getTimestamp(8)),
                  rs.getString(9),
                  rs.getInt(10)));
        }
      }
    }
    return out;
  }

  /** Every recorded handler execution, by job and attempt. */
  private static List<Execution> executions(DataSource ds, String schema) throws SQLException {
    List<Execution> out = new ArrayList<>();
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT job_id, due_at, attempt, fence, node FROM \""
                    + schema
                    + "\".periodic_run ORDER BY job_id, attempt, at");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(
            new Execution(
                rs.getLong(1),
                Instant.parse(rs.getString(2)),
                rs.getInt(3),
                rs.getLong(4),
                rs.getString(5)));
      }
    }
    return out;
  }

  private static Instant instant(Timestamp t) {
    return t == null ? null : t.toInstant();
  }

  /** Starts a {@link PeriodicNodeMain} child named {@code id}. */
  private static ChildProcess startNode(String jdbcUrl, String schema, String id)
      throws IOException {
    return ChildProcess.start(
        id,
        PeriodicNodeMain.class,
        List.of(),
        jdbcUrl,
        schema,
        id,
        CRON,
        Long.toString(LEADER_TTL.toMillis()),
        Long.toString(MAINTENANCE_INTERVAL.toMillis()),
        Long.toString(LEASE.toMillis()));
  }
}
