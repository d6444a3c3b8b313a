package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testing.Fixture;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A handler's timeout runs from its start on the node's clock: a database clock behind the node's
 * (here 2 s, simulated by a trigger that stamps the claim's times earlier) does not fire it early,
 * and a handler that finishes within its timeout completes with no error recorded.
 */
class ClockSkewDoesNotFireTimeoutsEarlyTest {

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
