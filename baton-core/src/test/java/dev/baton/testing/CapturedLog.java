package dev.baton.testing;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * What the test logger (slf4j-simple, which writes to {@code System.err}) writes while this is
 * open; closing it restores {@code System.err} and copies the text there, so a failing test still
 * shows its log.
 */
public final class CapturedLog implements AutoCloseable {
  private final PrintStream stderr = System.err;
  private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

  public CapturedLog() {
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
  }

  public synchronized String text() {
    return captured.toString(StandardCharsets.UTF_8);
  }

  /** The lines written by {@code logger} (its full name) at {@code level} (INFO, WARN, ...). */
  public List<String> lines(String level, String logger) {
    return text().lines().filter(l -> l.contains(" " + level + " " + logger + " - ")).toList();
  }

  @Override
  public void close() {
    System.setErr(stderr);
    stderr.print(text());
  }
}
