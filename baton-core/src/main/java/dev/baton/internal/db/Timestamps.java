package dev.baton.internal.db;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Locale;

/** Binding and reading {@code timestamptz} values, for the stores of this package. */
final class Timestamps {

  private Timestamps() {}

  /** Binds {@code value} (null: SQL null) at {@code index}. */
  static void setInstant(PreparedStatement ps, int index, Instant value) throws SQLException {
    if (value == null) {
      ps.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
    } else {
      ps.setObject(index, OffsetDateTime.ofInstant(value, ZoneOffset.UTC));
    }
  }

  /**
   * {@code value} as PostgreSQL's own text of a {@code timestamptz} in UTC, rounded to the
   * microsecond (half up, as the driver rounds), or null: {@code 4713-01-01 00:00:00.000000+00 BC},
   * {@code 294246-12-31 23:59:59.999999+00}. The driver's binding of an {@code OffsetDateTime}
   * turns a time before 4713 BC into {@code -infinity}, and the ISO text of {@link
   * Instant#toString()} with a sign or a year 0 is no input PostgreSQL reads; this form covers
   * PostgreSQL's whole range, so a job's run-at time is bound one way on every enqueue path.
   */
  static String text(Instant value) {
    if (value == null) {
      return null;
    }
    LocalDateTime t =
        LocalDateTime.ofInstant(
            value.plusNanos(500).truncatedTo(ChronoUnit.MICROS), ZoneOffset.UTC);
    int year = t.getYear();
    return String.format(
        Locale.ROOT,
        "%04d-%02d-%02d %02d:%02d:%02d.%06d+00%s",
        year > 0 ? year : 1 - year,
        t.getMonthValue(),
        t.getDayOfMonth(),
        t.getHour(),
        t.getMinute(),
        t.getSecond(),
        t.getNano() / 1_000,
        year > 0 ? "" : " BC");
  }

  /** The instant {@code micros} microseconds after the epoch. */
  static Instant instantOfMicros(long micros) {
    return Instant.ofEpochSecond(
        Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
  }

  /** Column {@code column} read as microseconds since the epoch, or null. */
  static Instant instantOfMicros(ResultSet rs, int column) throws SQLException {
    long micros = rs.getLong(column);
    return rs.wasNull() ? null : instantOfMicros(micros);
  }

  /** Column {@code column}, a {@code timestamptz}, or null. */
  static Instant instant(ResultSet rs, int column) throws SQLException {
    OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
    return t == null ? null : t.toInstant();
  }
}
