package dev.baton.cli.bench;

import java.util.ArrayList;
import java.util.List;

/** The lines of the final figures block, in the order they were measured. */
public final class Figures {
  private record Line(String label, String text) {}

  /** An empty block. */
  public Figures() {}

  private final List<Line> lines = new ArrayList<>();

  /** Adds a line; an empty label continues the previous figure. Also echoed to stderr at once. */
  public synchronized void add(String label, String text) {
    lines.add(new Line(label, text));
    System.err.println("[bench] " + (label.isEmpty() ? "  " : label + ": ") + text);
  }

  /** The block, labels padded to one width. */
  public synchronized String render() {
    int width = lines.stream().mapToInt(l -> l.label().length()).max().orElse(0);
    StringBuilder sb = new StringBuilder();
    for (Line l : lines) {
      String label = l.label();
      sb.append(label).append(" ".repeat(width - label.length()));
      sb.append(label.isEmpty() ? "   " : " : ").append(l.text()).append('\n');
    }
    return sb.toString();
  }
}
