package dev.baton.internal.db;

import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import org.postgresql.copy.CopyIn;

/**
 * Rows in {@code COPY ... FROM STDIN}'s text format, streamed to a {@link CopyIn} in chunks: fields
 * separated by a tab, rows ended by a newline, and in each field the four characters the format
 * reads specially ({@code \}, tab, newline, carriage return) written as backslash escapes, so that
 * no value can end a field or a row early, read as {@code \N} (null) or as the end marker {@code
 * \.}. Text is sent as UTF-8, pgjdbc's client encoding.
 *
 * <p>Not public API.
 */
final class CopyText {
  // Small enough that the server starts on the first rows while the client builds the next ones.
  private static final int CHUNK_CHARS = 1 << 14;

  private final CopyIn copy;
  private final StringBuilder buf = new StringBuilder(CHUNK_CHARS + 1024);
  private boolean rowStarted;

  CopyText(CopyIn copy) {
    this.copy = copy;
  }

  /** Appends a text field. */
  CopyText field(String value) {
    separate();
    int n = value.length();
    int i = 0;
    while (i < n && !special(value.charAt(i))) {
      i++;
    }
    buf.append(value, 0, i); // most values need no escape: one copy
    for (; i < n; i++) {
      char ch = value.charAt(i);
      switch (ch) {
        case '\\' -> buf.append("\\\\");
        case '\t' -> buf.append("\\t");
        case '\n' -> buf.append("\\n");
        case '\r' -> buf.append("\\r");
        default -> buf.append(ch);
      }
    }
    return this;
  }

  /** Appends a text field, or a null ({@code \\N}) for null. */
  CopyText fieldOrNull(String value) {
    if (value == null) {
      separate();
      buf.append("\\N");
      return this;
    }
    return field(value);
  }

  /** Appends a number field. */
  CopyText field(long value) {
    separate();
    buf.append(value);
    return this;
  }

  /** Ends the row; sends the buffer once it holds a chunk's worth. */
  void endRow() throws SQLException {
    buf.append('\n');
    rowStarted = false;
    if (buf.length() >= CHUNK_CHARS) {
      flush();
    }
  }

  /** Sends what is buffered. */
  void flush() throws SQLException {
    if (buf.length() > 0) {
      byte[] bytes = buf.toString().getBytes(StandardCharsets.UTF_8);
      copy.writeToCopy(bytes, 0, bytes.length);
      buf.setLength(0);
    }
  }

  private static boolean special(char ch) {
    return ch == '\\' || ch == '\t' || ch == '\n' || ch == '\r';
  }

  private void separate() {
    if (rowStarted) {
      buf.append('\t');
    }
    rowStarted = true;
  }
}
