package dev.baton.property;

import static dev.baton.property.Step.Meanwhile.HEARTBEAT;
import static dev.baton.property.Step.Meanwhile.NOTHING;
import static dev.baton.property.Step.Meanwhile.RESCUE;
import static dev.baton.property.Step.TxEnd.COMMIT;
import static dev.baton.property.Step.TxEnd.ROLLBACK;
import static dev.baton.property.Step.Writer.LATEST;
import static dev.baton.property.Step.Writer.NEVER;
import static dev.baton.property.Step.Writer.PREVIOUS;
import static dev.baton.property.Step.cancel;
import static dev.baton.property.Step.cancelByHolder;
import static dev.baton.property.Step.claim;
import static dev.baton.property.Step.complete;
import static dev.baton.property.Step.completeAll;
import static dev.baton.property.Step.completeAndClaim;
import static dev.baton.property.Step.completeIn;
import static dev.baton.property.Step.extend;
import static dev.baton.property.Step.fail;
import static dev.baton.property.Step.heartbeat;
import static dev.baton.property.Step.jump;
import static dev.baton.property.Step.maintain;
import static dev.baton.property.Step.rescue;
import static dev.baton.property.Step.retryComplete;
import static dev.baton.property.Step.schedule;
import static dev.baton.property.Step.snooze;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.testing.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Invariants 3 and 4 as a stateful property on real PostgreSQL: random sequences of claims,
 * heartbeats, lease extensions, clock jumps past the lease, rescues, scheduler passes, completions
 * (plain, batched, folded into a claim, and in the holder's own transaction, committed or rolled
 * back), failures, snoozes and cancels, by three holders of the same three jobs. After every step
 * {@link FencingWorld#checkInvariants()} checks that
 *
 * <ol>
 *   <li>at most one holder can write each job: exactly the one whose remembered fence is the
 *       running row's fence, and a write of every kind with any other fence changes nothing;
 *   <li>no job was completed twice, and a final row never changes again;
 *   <li>no write with an old fence changed a row (each stale write of a step is compared with a
 *       snapshot of the row taken before it).
 * </ol>
 *
 * <p>Scenarios come from {@link Scenarios}: {@value #TRIES} per run, each of up to {@value
 * Scenarios#MAX_STEPS} steps drawn from one seeded random source. The seed is printed; rerun one
 * with {@code -Dbaton.fencing.seed=<seed>}. A failing scenario is shrunk to the fewest steps that
 * still fail and reported as the replay call, ready to be kept as an example below. (Not jqwik: its
 * 1.10 releases tell AI agents, which write much of this code, not to use it and to ignore its
 * results, so a result it reports could not be taken at face value here.)
 *
 * <p>Each try runs on a fresh schema, dropped after the try. Examples replay hand-written sequences
 * and counterexamples the property found, step for step.
 */
class FencingPropertyTest {

  private static final int TRIES = 50;

  // The least share of tries, in percent, that must reach each of these situations; the run
  // prints the shares it reached. Only a generator that stopped reaching a situation falls below.
  private static final Map<String, Double> LEAST_COVERAGE =
      Map.of(
          FencingWorld.JOB_RESCUED, 50.0,
          FencingWorld.RUNNING_WITH_OLD_CLAIMS, 30.0,
          FencingWorld.STALE_WRITE_ON_RECLAIMED, 5.0,
          FencingWorld.STALE_TRANSACTIONAL_COMPLETION, 10.0);

  private static HikariDataSource pool;

  @Test
  void onlyTheCurrentHolderCanChangeAJob() {
    long seed = Long.getLong("baton.fencing.seed", new Random().nextLong());
    System.out.println("FencingPropertyTest seed " + seed);
    Random random = new Random(seed);
    Map<String, Integer> reached = new TreeMap<>();
    for (int t = 0; t < TRIES; t++) {
      List<Step> scenario = Scenarios.draw(random);
      Throwable failure = run(scenario, reached);
      if (failure != null) {
        List<Step> shrunk = Scenarios.shrink(scenario, s -> run(s, new TreeMap<>()) != null);
        Throwable minimal = run(shrunk, new TreeMap<>());
        fail(
            "try "
                + t
                + " of seed "
                + seed
                + " failed after "
                + scenario.size()
                + " steps; shrunk to "
                + shrunk.size()
                + ":\n  w.replay("
                + shrunk.stream().map(Step::toString).collect(Collectors.joining(",\n      "))
                + ");\nwith: "
                + (minimal != null ? minimal : failure),
            minimal != null ? minimal : failure);
      }
    }
    List<String> shares = new ArrayList<>();
    for (String event : FencingWorld.EVENTS) {
      double share = 100.0 * reached.getOrDefault(event, 0) / TRIES;
      shares.add(String.format("%5.1f %% %s", share, event));
    }
    System.out.println(
        "FencingPropertyTest coverage over " + TRIES + " tries:\n" + String.join("\n", shares));
    LEAST_COVERAGE.forEach(
        (event, least) ->
            assertThat(100.0 * reached.getOrDefault(event, 0) / TRIES)
                .as("share of tries that reached: " + event)
                .isGreaterThanOrEqualTo(least));
  }

  /** Runs {@code scenario} on a fresh world; returns what failed, or null. */
  private static Throwable run(List<Step> scenario, Map<String, Integer> reached) {
    try (FencingWorld w = new FencingWorld(pool())) {
      try {
        w.replay(scenario.toArray(new Step[0]));
      } finally {
        for (String e : w.events()) {
          reached.merge(e, 1, Integer::sum);
        }
      }
      return null;
    } catch (AssertionError | RuntimeException e) {
      return e;
    }
  }

  @Test
  void staleHolderCannotWriteAfterRescueAndReclaim() {
    try (FencingWorld w = new FencingWorld(pool())) {
      w.replay(
          claim(0, 1),
          jump(25),
          heartbeat(0), // the lease now ends at +85 min
          jump(65),
          rescue(),
          schedule(),
          claim(1, 3), // job 0 is the newest available job now: take all three
          complete(0, PREVIOUS),
          completeAndClaim(0, PREVIOUS, 1),
          completeIn(0, PREVIOUS, COMMIT, NOTHING),
          heartbeat(0),
          extend(0, PREVIOUS),
          fail(0, PREVIOUS, 0),
          snooze(0, PREVIOUS, 0),
          cancelByHolder(0, PREVIOUS),
          complete(0, NEVER),
          complete(0, LATEST),
          complete(0, LATEST),
          completeAll(0),
          completeAll(1));
      assertThat(w.claims(0)).isEqualTo(2);
      assertThat(w.latestHolder(0)).isEqualTo(1);
      assertThat(w.state(0)).isEqualTo("completed");
      assertThat(w.completions(0)).isEqualTo(1);
    }
  }

  /**
   * A completion retried after its reply was lost finds its own write, once the job is completed
   * under its fence; the holder that lost the job finds nothing, before and after the new holder
   * completes it, and no retry completes a job a second time.
   */
  @Test
  void aRetriedCompletionFindsOnlyItsOwnWrite() {
    try (FencingWorld w = new FencingWorld(pool())) {
      w.replay(
          claim(0, 1),
          retryComplete(0, LATEST), // the first try never reached the server: written now
          retryComplete(0, LATEST), // its reply lost: found, not written again
          claim(1, 2),
          jump(65),
          rescue(),
          schedule(),
          claim(2, 2),
          retryComplete(1, PREVIOUS),
          complete(1, LATEST),
          retryComplete(1, PREVIOUS),
          retryComplete(1, LATEST),
          retryComplete(1, NEVER));
      assertThat(w.state(0)).isEqualTo("completed");
      assertThat(w.completions(0)).isEqualTo(1);
      assertThat(w.state(1)).isEqualTo("completed");
      assertThat(w.completions(1)).isEqualTo(1);
      assertThat(w.latestHolder(1)).isEqualTo(2);
    }
  }

  @Test
  void rolledBackTransactionalCompletionIsRetriedByTheNewHolderOnly() {
    try (FencingWorld w = new FencingWorld(pool())) {
      w.replay(
          claim(0, 1),
          completeIn(0, LATEST, ROLLBACK, HEARTBEAT),
          jump(65),
          rescue(),
          schedule(),
          claim(1, 3),
          completeIn(0, PREVIOUS, COMMIT, NOTHING),
          completeIn(0, LATEST, ROLLBACK, NOTHING),
          jump(65),
          // every lease of h1 ran out; its open transaction holds job 0, so the rescue skips it
          completeIn(0, LATEST, COMMIT, RESCUE),
          rescue(),
          completeIn(0, PREVIOUS, COMMIT, NOTHING),
          completeIn(0, LATEST, COMMIT, NOTHING));
      assertThat(w.claims(0)).isEqualTo(2);
      assertThat(w.latestHolder(0)).isEqualTo(1);
      assertThat(w.state(0)).isEqualTo("completed");
      assertThat(w.completions(0)).isEqualTo(1);
      assertThat(w.effects(0)).isEqualTo(1);
    }
  }

  @Test
  void oldAttemptsCannotWriteAfterSnoozeFailOrCancel() {
    try (FencingWorld w = new FencingWorld(pool())) {
      w.replay(
          claim(0, 2),
          snooze(0, LATEST, 0), // gives the attempt back: a guard on attempt would let it in again
          claim(0, 2), // h0 again: an old attempt of job 0 may still run on its node
          snooze(0, PREVIOUS, 0),
          complete(0, PREVIOUS),
          fail(1, LATEST, 0), // job 1 has attempts left: retryable
          jump(5),
          schedule(),
          claim(2, 1),
          fail(1, PREVIOUS, 0),
          cancel(1),
          heartbeat(2),
          heartbeat(0),
          cancelByHolder(1, LATEST),
          cancelByHolder(1, LATEST),
          completeAndClaim(0, LATEST, 1),
          completeIn(0, PREVIOUS, COMMIT, NOTHING));
      assertThat(w.claims(0)).isEqualTo(2);
      assertThat(w.latestHolder(0)).isEqualTo(0);
      assertThat(w.state(0)).isEqualTo("completed");
      assertThat(w.state(1)).isEqualTo("cancelled");
      assertThat(w.latestHolder(1)).isEqualTo(2);
    }
  }

  /**
   * The counterexample the property shrank to when the transactional completion's SQL was broken on
   * purpose to accept any writer that has a fence ({@code ? > 0} instead of {@code fence = ?}) and
   * the per-step write probes were off: the first attempt of job 0, rescued and claimed again,
   * commits. With the probes on it shrank to the same steps without the write, which the probe of
   * the fifth step makes: {@code claim(0, 1), claim(0, 2), jump(65), maintain(), claim(0, 1)}.
   */
  @Test
  void staleAttemptCannotCompleteInItsTransactionAfterRescueAndReclaim() {
    try (FencingWorld w = new FencingWorld(pool())) {
      w.replay(
          claim(0, 1),
          jump(65),
          maintain(),
          claim(0, 1),
          claim(0, 1),
          claim(0, 1), // job 0, rescued, is the newest available job: the third claim takes it
          completeIn(0, PREVIOUS, COMMIT, NOTHING));
      assertThat(w.claims(0)).isEqualTo(2);
      assertThat(w.state(0)).isEqualTo("running");
      assertThat(w.effects(0)).isZero();
    }
  }

  @AfterAll
  static synchronized void closePool() {
    if (pool != null) {
      pool.close();
      pool = null;
    }
  }

  // A pool whose statements give up after a while: a write that blocked on a row lock would
  // otherwise hang the run instead of failing it.
  private static synchronized DataSource pool() {
    if (pool == null) {
      HikariConfig cfg = new HikariConfig();
      cfg.setJdbcUrl(TestDatabase.get().jdbcUrl());
      cfg.setMaximumPoolSize(4);
      cfg.setMinimumIdle(0);
      cfg.setPoolName("fencing-property");
      cfg.setConnectionInitSql("SET statement_timeout = '20s'");
      pool = new HikariDataSource(cfg);
    }
    return pool;
  }
}
