package dev.baton.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.internal.SettableTime;
import dev.baton.internal.cluster.Elector;
import dev.baton.internal.db.ClusterStore;
import dev.baton.internal.db.Leadership;
import dev.baton.internal.db.SchemaName;
import dev.baton.testing.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Invariant 8, election half: one leader at a time per role. Three electors on one settable clock,
 * stepped by {@code runOnce()}; no sleeps.
 */
class ElectorTest {
  private static final Duration TTL = Duration.ofSeconds(9);

  private final TestDatabase db = TestDatabase.get();
  private final DataSource ds = db.admin();
  private final String schema = db.newMigratedSchema();
  private final ClusterStore store = new ClusterStore(SchemaName.of(schema));
  private final SettableTime time = new SettableTime(Instant.now());

  private Elector elector(String node) {
    return new Elector(ds, store, Leadership.MAINTENANCE, node, TTL, time);
  }

  private ClusterStore.LeaderRow row() {
    return store.leader(ds, Leadership.MAINTENANCE);
  }

  @Test
  void exactlyOneOfThreeCandidatesLeadsAndRenewalKeepsItsTerm() {
    List<Elector> all = List.of(elector("a"), elector("b"), elector("c"));
    List<Leadership> won = all.stream().map(Elector::runOnce).filter(Objects::nonNull).toList();
    assertThat(won).hasSize(1);
    Leadership lead = won.get(0);
    assertThat(row().leaderId()).isEqualTo(lead.nodeId());
    assertThat(row().term()).isEqualTo(lead.term());

    for (int step = 0; step < 10; step++) {
      time.advance(TTL.dividedBy(3));
      for (Elector e : all) {
        e.runOnce();
      }
      assertThat(all.stream().map(Elector::current).filter(Objects::nonNull))
          .as("leaders after step %d", step)
          .containsExactly(lead);
    }
    assertThat(row().term()).as("renewals stay in the term").isEqualTo(lead.term());
    assertThat(db.queryLong("SELECT last_value FROM " + schema + ".leader_term_seq"))
        .as("followers' steps draw no terms")
        .isEqualTo(lead.term());
    assertThat(row().expiresAt()).isEqualTo(time.now().plus(TTL));
  }

  @Test
  void anExpiredLeaseIsTakenOverUnderAHigherTermAndTheOldLeaderStepsDown() {
    Elector a = elector("a");
    Elector b = elector("b");
    Leadership first = a.runOnce();
    assertThat(first).isNotNull();
    assertThat(b.runOnce()).as("the lease is live").isNull();

    time.advance(TTL.plusMillis(1)); // a is frozen: no renewal
    Leadership second = b.runOnce();
    assertThat(second).isNotNull();
    assertThat(second.nodeId()).isEqualTo("b");
    assertThat(second.term()).isGreaterThan(first.term());
    assertThat(a.current()).as("a's trust window ran out long ago").isNull();

    assertThat(a.runOnce()).as("a wakes up: renewal refused, b holds the role").isNull();
    assertThat(a.holds()).isFalse();
    assertThat(row().leaderId()).isEqualTo("b");
  }

  @Test
  void theTrustWindowEndsAThirdOfTheTtlBeforeAnotherNodeCouldBeElected() {
    Elector a = elector("a");
    Elector b = elector("b");
    assertThat(a.runOnce()).isNotNull();

    time.advance(TTL.multipliedBy(2).dividedBy(3).minusMillis(1));
    assertThat(a.current()).as("inside the window").isNotNull();
    time.advance(Duration.ofMillis(1));
    assertThat(a.current()).as("window over: a stops acting").isNull();
    assertThat(a.holds()).as("but it has not lost the row").isTrue();
    assertThat(b.runOnce()).as("and nobody else may lead yet").isNull();

    time.advance(TTL.dividedBy(3).minusMillis(1));
    assertThat(b.runOnce()).as("one ms before the lease ends").isNull();
    time.advance(Duration.ofMillis(1));
    assertThat(b.runOnce()).as("the lease ended").isNotNull();
  }

  @Test
  void aLeaderThatRenewsLateStartsANewTermRatherThanExtendingTheOld() {
    Elector a = elector("a");
    Leadership first = a.runOnce();
    time.advance(TTL.plusSeconds(1));
    Leadership again = a.runOnce();
    assertThat(again).isNotNull();
    assertThat(again.term())
        .as("writes fenced by the lapsed term stay refused")
        .isGreaterThan(first.term());
  }

  @Test
  void resignFreesTheRoleAtOnceAndTellsTheCluster() throws Exception {
    Elector a = elector("a");
    Elector b = elector("b");
    try (Connection listen = ds.getConnection()) {
      listen.setAutoCommit(true);
      try (Statement st = listen.createStatement()) {
        st.execute("LISTEN \"" + SchemaName.of(schema).controlChannel() + "\"");
      }
      assertThat(a.runOnce()).isNotNull();
      assertThat(b.runOnce()).isNull();

      a.resign();

      assertThat(b.runOnce()).as("no time passed; the role is free").isNotNull();
      PGNotification[] got = listen.unwrap(PGConnection.class).getNotifications(5_000);
      assertThat(got).isNotNull();
      assertThat(Stream.of(got).map(PGNotification::getParameter))
          .anySatisfy(p -> assertThat(p).contains("leader_resigned").contains("maintenance"));
    }
    assertThat(a.current()).isNull();
  }
}
