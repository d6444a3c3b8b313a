package dev.baton.dashboard;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * HTML building: {@link #esc} for every value that is not markup written here, and the page frame.
 * No template engine: a page is a few loops over records, and keeping all escaping in one method
 * keeps it easy to check.
 */
final class Html {

  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS'Z'", Locale.ROOT)
          .withZone(ZoneOffset.UTC);

  private final StringBuilder sb = new StringBuilder(8192);

  /** {@code s} escaped for HTML text and quoted attribute values; null as empty. */
  static String esc(Object s) {
    if (s == null) {
      return "";
    }
    String in = s.toString();
    StringBuilder out = new StringBuilder(in.length() + 16);
    for (int i = 0; i < in.length(); i++) {
      char c = in.charAt(i);
      switch (c) {
        case '&' -> out.append("&amp;");
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        default -> out.append(c);
      }
    }
    return out.toString();
  }

  /** {@code s} encoded for a URL query value or path segment. */
  static String url(Object s) {
    return URLEncoder.encode(s.toString(), StandardCharsets.UTF_8).replace("+", "%20");
  }

  /**
   * {@code s} cut to at most {@code max} characters followed by {@code ...} when longer, never
   * between the two halves of a surrogate pair (an emoji, a CJK extension character).
   */
  static String cut(String s, int max) {
    if (s.length() <= max) {
      return s;
    }
    int end = Character.isHighSurrogate(s.charAt(max - 1)) ? max - 1 : max;
    return s.substring(0, end) + "...";
  }

  /** An instant in UTC to the millisecond; {@code -} for null. */
  static String time(Instant t) {
    return t == null ? "-" : TIME.format(t);
  }

  /** Seconds as {@code 4.2s}, {@code 3m05s}, {@code 2h03m}, {@code 3d04h}. */
  static String age(double seconds) {
    if (seconds < 60) {
      return String.format(Locale.ROOT, "%.1fs", seconds);
    }
    long s = (long) seconds;
    if (s < 3_600) {
      return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
    }
    if (s < 86_400) {
      return String.format(Locale.ROOT, "%dh%02dm", s / 3_600, (s % 3_600) / 60);
    }
    return String.format(Locale.ROOT, "%dd%02dh", s / 86_400, (s % 86_400) / 3_600);
  }

  /** A rate limit's period as the limits form takes it: {@code 250ms}, {@code 1s}, {@code 5m}. */
  static String period(Duration d) {
    long ms = d.toMillis();
    if (ms % 3_600_000 == 0) {
      return ms / 3_600_000 + "h";
    }
    if (ms % 60_000 == 0) {
      return ms / 60_000 + "m";
    }
    return ms % 1_000 == 0 ? ms / 1_000 + "s" : ms + "ms";
  }

  /** The time from {@code from} to {@code to} as {@link #age}, signed. */
  static String between(Instant from, Instant to) {
    long ms = Duration.between(from, to).toMillis();
    return (ms < 0 ? "-" : "") + age(Math.abs(ms) / 1000.0);
  }

  /** A share as a percentage with one decimal; {@code -} when nothing ended. */
  static String share(double ratio, long ended) {
    return ended == 0 ? "-" : String.format(Locale.ROOT, "%.1f%%", ratio * 100);
  }

  /** Appends markup written in this module (never user data). */
  Html raw(String markup) {
    sb.append(markup);
    return this;
  }

  /** Appends {@code value}, escaped. */
  Html text(Object value) {
    sb.append(esc(value));
    return this;
  }

  /** A POST form of one button: the CSRF token, the hidden fields, a confirm prompt if given. */
  Html button(String action, String label, String csrf, String confirm, String... hidden) {
    sb.append("<form class=\"inline\" method=\"post\" action=\"").append(esc(action)).append('"');
    if (confirm != null) {
      sb.append(" data-confirm=\"").append(esc(confirm)).append('"');
    }
    sb.append("><input type=\"hidden\" name=\"csrf\" value=\"").append(esc(csrf)).append("\">");
    for (int i = 0; i + 1 < hidden.length; i += 2) {
      sb.append("<input type=\"hidden\" name=\"")
          .append(esc(hidden[i]))
          .append("\" value=\"")
          .append(esc(hidden[i + 1]))
          .append("\">");
    }
    sb.append("<button type=\"submit\" name=\"do\" value=\"")
        .append(esc(label))
        .append("\">")
        .append(esc(label))
        .append("</button></form>");
    return this;
  }

  @Override
  public String toString() {
    return sb.toString();
  }

  /** The page frame around {@code body}: head, navigation, the message of an action if any. */
  static String page(String base, String title, String message, boolean readOnly, String body) {
    Html h = new Html();
    h.raw("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">")
        .raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
        .raw("<title>")
        .text(title)
        .raw(" · Baton</title><link rel=\"stylesheet\" href=\"")
        .text(base + "/assets/dashboard.css")
        .raw("\"><script defer src=\"")
        .text(base + "/assets/dashboard.js")
        .raw("\"></script></head><body><header><a class=\"brand\" href=\"")
        .text(base + "/")
        .raw("\">Baton</a><nav>")
        .raw("<a href=\"")
        .text(base + "/")
        .raw("\">Queues</a><a href=\"")
        .text(base + "/jobs")
        .raw("\">Jobs</a><a href=\"")
        .text(base + "/failures")
        .raw("\">Failures</a><a href=\"")
        .text(base + "/times")
        .raw("\">Times</a><a href=\"")
        .text(base + "/history")
        .raw("\">History</a><a href=\"")
        .text(base + "/nodes")
        .raw("\">Nodes</a><a href=\"")
        .text(base + "/periodic")
        .raw("\">Periodic</a></nav>");
    if (readOnly) {
      h.raw("<span class=\"badge\">read-only</span>");
    }
    h.raw("</header><main>");
    if (message != null) {
      h.raw("<p class=\"message\" role=\"status\">").text(message).raw("</p>");
    }
    h.raw("<h1>").text(title).raw("</h1>").raw(body).raw("</main></body></html>");
    return h.toString();
  }
}
