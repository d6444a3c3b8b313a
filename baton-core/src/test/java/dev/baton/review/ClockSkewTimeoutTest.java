package dev.baton.review;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.JobArgs;
import dev.baton.JobState;
import dev.baton.testing.Fixture;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The holder's timeout timer is armed for deadline_at (database clock) minus the lease, measured
 * against the node's wall clock (Instant.now()). With the database clock 2 s behind the node, a
 * handler with a 1 s timeout is interrupted at once, though it would finish in 0.2 s. The skew is
 * simulated by a trigger that stamps the claim's times 2 s earlier, as a lagging database clock
 * would.
 */
class ClockSkewTimeoutTest {

  record Quick(int n) implements JobArgs {}

  @Test
  void aDatabaseClockBehindTheNodeDoesNotFireTimeoutsEarly() {
    try (Fixture f = new Fixture()) {
      f.execute(
          "CREATE FUNCTION %s.skew() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
              + " IF NEW.state = 'running' AND OLD.state <> 'running' THEN"
              + " NEW.attempted_at := NEW.attempted_at - interval '2 seconds';"
              + " NEW.lease_expires_at := NEW.lease_expires_at - interval '2 seconds';"
              + " NEW.deadline_at := NEW.deadline_at - interval '2 seconds';"
              + " END IF; RETURN NEW; END $$");
      f.execute(
          "CREATE TRIGGER skew BEFORE UPDATE ON %s.job FOR EACH ROW EXECUTE FUNCTION %s.skew()");
      Baton baton =
          f.start(
              f.config().queue("default", 1).retryPolicy((n, e) -> Duration.ofHours(1)).build(),
              b -> b.handler(Quick.class, Duration.ofSeconds(1), (ctx, a) -> Thread.sleep(200)));
      long id = baton.enqueue(new Quick(1)).job().id();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  f.job(id).state() != JobState.AVAILABLE && f.job(id).state() != JobState.RUNNING);
      assertThat(f.job(id).errors()).isEmpty();
      assertThat(f.job(id).state()).isEqualTo(JobState.COMPLETED);
    }
  }
}
