package dev.baton.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.AbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/**
 * A driver's message may quote the host as it read it from a URL with user info ("app:secret@db"):
 * the client's own log lines about failing connections mask it.
 */
class LoggedFailuresMaskPasswordsTest {

  private static SQLException unknownHost() {
    return new SQLException(
        "The connection attempt failed.",
        "08001",
        new UnknownHostException("app:hunter2@db.example.com"));
  }

  @Test
  void aRepeatingFailureIsLoggedWithItsPasswordMasked() {
    Recording log = new Recording();
    RepeatingFailure f = new RepeatingFailure(log, "cannot reach the database");
    f.failed(unknownHost(), Duration.ofMillis(100));
    assertThat(log.lines).hasSize(1);
    assertThat(log.lines.get(0))
        .contains("app:***@db.example.com")
        .contains("SQLException")
        .doesNotContain("hunter2");
  }

  @Test
  void anOutageIsLoggedWithItsPasswordMasked() {
    // slf4j-simple, the tests' binding, prints to whatever System.err is at the time.
    PrintStream err = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      assertThat(new Outage().failed("claim", unknownHost())).isTrue();
    } finally {
      System.setErr(err);
    }
    assertThat(captured.toString(StandardCharsets.UTF_8))
        .contains("database unreachable: claim failed")
        .contains("app:***@db.example.com")
        .doesNotContain("hunter2");
  }

  /** A logger that keeps each line it is given, the throwable's stack trace appended. */
  private static final class Recording extends AbstractLogger {
    private static final long serialVersionUID = 1L;
    final List<String> lines = new ArrayList<>();

    @Override
    protected String getFullyQualifiedCallerName() {
      return null;
    }

    @Override
    protected void handleNormalizedLoggingCall(
        Level level, Marker marker, String format, Object[] args, Throwable t) {
      String line = MessageFormatter.basicArrayFormat(format, args);
      if (t != null) {
        StringWriter w = new StringWriter();
        t.printStackTrace(new PrintWriter(w));
        line += "\n" + w;
      }
      lines.add(line);
    }

    @Override
    public boolean isTraceEnabled() {
      return true;
    }

    @Override
    public boolean isTraceEnabled(Marker marker) {
      return true;
    }

    @Override
    public boolean isDebugEnabled() {
      return true;
    }

    @Override
    public boolean isDebugEnabled(Marker marker) {
      return true;
    }

    @Override
    public boolean isInfoEnabled() {
      return true;
    }

    @Override
    public boolean isInfoEnabled(Marker marker) {
      return true;
    }

    @Override
    public boolean isWarnEnabled() {
      return true;
    }

    @Override
    public boolean isWarnEnabled(Marker marker) {
      return true;
    }

    @Override
    public boolean isErrorEnabled() {
      return true;
    }

    @Override
    public boolean isErrorEnabled(Marker marker) {
      return true;
    }
  }
}
