package dev.baton.internal.db;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

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
