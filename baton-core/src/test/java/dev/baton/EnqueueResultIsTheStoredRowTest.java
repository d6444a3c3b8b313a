package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testing.Fixture;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What an enqueue returns is the row as stored: its {@link Job}, built only when asked for, equals
 * the job read back, and its times, read as microseconds since the epoch, are the row's {@code
 * timestamptz} values to the microsecond (a conversion off by a unit, or a millisecond rounding,
 * fails here).
 */
class EnqueueResultIsTheStoredRowTest {

  record Order(long id, String email, double total) implements JobArgs {}

  @Test
  void theJobOfAnEnqueueEqualsTheJobReadBackWithItsTimesToTheMicrosecond() throws Exception {
    try (Fixture f = new Fixture()) {
      EnqueueOptions options =
          EnqueueOptions.builder()
              .queue("mail")
              .priority(3)
              .maxAttempts(7)
              .idempotencyKey("order-42")
              .metadata(Map.of("source", "checkout", "n", 1))
              .build();
      EnqueueResult r = f.reader().enqueue(new Order(42, "a@example.com", 19.99), options);

      assertThat(r.existing()).isFalse();
      assertThat(r.id()).isEqualTo(r.job().id());
      Job stored = f.job(r.id());
      assertThat(r.job()).isEqualTo(stored);
      assertThat(r.job().args().path("email").asText()).isEqualTo("a@example.com");
      assertThat(r.job().metadata().path("source").asText()).isEqualTo("checkout");
      assertThat(r.job().errors()).isEmpty();

      try (Connection c = f.dataSource().getConnection();
          PreparedStatement ps =
              c.prepareStatement(
                  "SELECT created_at, scheduled_at FROM " + f.schema() + ".job WHERE id = ?")) {
        ps.setLong(1, r.id());
        try (ResultSet rs = ps.executeQuery()) {
          assertThat(rs.next()).isTrue();
          Instant created = rs.getObject(1, OffsetDateTime.class).toInstant();
          Instant scheduled = rs.getObject(2, OffsetDateTime.class).toInstant();
          assertThat(r.job().createdAt()).isEqualTo(created);
          assertThat(r.job().scheduledAt()).isEqualTo(scheduled);
        }
      }

      EnqueueResult again = f.reader().enqueue(new Order(42, "b@example.com", 5), options);
      assertThat(again.existing()).isTrue();
      assertThat(again.id()).isEqualTo(r.id());
      assertThat(again.job()).isEqualTo(stored);
    }
  }

  @Test
  void aFinishedJobReadsItsNullAndSetTimes() {
    try (Fixture f = new Fixture()) {
      long id = f.reader().enqueue(new Order(1, "c@example.com", 1)).id();
      assertThat(f.job(id).attemptedAt()).isNull();
      assertThat(f.job(id).finalizedAt()).isNull();
      f.execute(
          "UPDATE %s.job SET state = 'cancelled', finalized_at = '2026-01-02 03:04:05.123456+00',"
              + " attempted_at = '1999-12-31 23:59:59.999999+00' WHERE id = "
              + id);
      Job job = f.job(id);
      assertThat(job.finalizedAt()).isEqualTo(Instant.parse("2026-01-02T03:04:05.123456Z"));
      assertThat(job.attemptedAt()).isEqualTo(Instant.parse("1999-12-31T23:59:59.999999Z"));
    }
  }
}
