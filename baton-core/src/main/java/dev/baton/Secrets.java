package dev.baton;

import java.net.URLDecoder;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one routine that masks database passwords in text before it is shown: messages, log lines,
 * stack traces, web pages. Every module of Baton that prints text which may quote a JDBC URL (the
 * {@code baton} command, the dashboard, the Spring Boot starter's failure analysis, the client's
 * own log lines) passes it through here, so a form of URL masked in one place is masked in all.
 *
 * <p>A password is replaced by {@code ***}. {@link #mask(String)} finds passwords by where they
 * stand: the value of a {@code password=} parameter (any case, quoted or not) and the part after
 * the colon of the user info of a URL ({@code scheme://user:password@host}, {@code
 * jdbc:postgresql:user:password@host}, and a bare {@code user:password@host} as a driver's or the
 * JDK's message quotes it). {@link #mask(String, String)} also replaces every occurrence of a
 * password the given URL holds, whatever surrounds it, so that a password with spaces, slashes or
 * an {@code @} in it, or quoted by a driver in a form no pattern knows, is masked too.
 *
 * <p>Stateless and thread-safe.
 */
public final class Secrets {

  /** What stands in for a password. */
  public static final String MASK = "***";

  // password=value up to a separator, a colon before one excluded ("...password=x: refused"); a
  // quoted value up to its closing quote.
  private static final Pattern PASSWORD_PARAMETER =
      Pattern.compile(
          "(?i)(password\\s*=\\s*)"
              + "(?:\"[^\"]*\"|'[^']*'|[^&\\s'\";,)\\]}]+?(?=:?(?:$|[&\\s'\";,)\\]}])))");

  // scheme://user:password@host: the user info runs to the last '@' before the query, so that a
  // password holding '@' or '/' is masked whole. Lengths are bounded so that a long text (a 10 MB
  // argument) is scanned in linear time; a longer password is masked by its value (mask(text,
  // url)).
  private static final Pattern URL_USER_INFO =
      Pattern.compile(
          "(?i)(?<![a-z0-9+.-])([a-z][a-z0-9+.-]{0,31}://)"
              + "([^\\s/?#@:'\"]{0,256}):([^\\s?#'\"]{0,1024})@");

  // user:password@ where a word starts (jdbc:postgresql:user:password@host, or a host name a
  // message quotes as the driver read it); not jdbc:postgresql: itself.
  private static final Pattern USER_INFO =
      Pattern.compile(
          "(?:^|(?<=[\\s/'\"(=,;:\\[]))(?!jdbc:|postgres(?:ql)?:)"
              + "([^\\s/@:'\"]{0,256}):([^\\s/@'\"]{0,1024})@");

  private static final String JDBC_PREFIX = "jdbc:postgresql:";

  private static final Pattern PASSWORD_VALUE = Pattern.compile("(?i)password=([^&]*)");

  /**
   * The shortest password masked by its value alone ({@link #mask(String, String)}): shorter ones
   * would mask ordinary words; the patterns of {@link #mask(String)} still cover their usual
   * places.
   */
  static final int SHORTEST_MASKED_VALUE = 3;

  private Secrets() {}

  /**
   * {@code text} (a URL, a message, a stack trace) with every password masked where it stands in a
   * URL or a {@code password=} parameter; null for null.
   */
  public static String mask(String text) {
    if (text == null) {
      return null;
    }
    String r = PASSWORD_PARAMETER.matcher(text).replaceAll("$1" + Matcher.quoteReplacement(MASK));
    r = URL_USER_INFO.matcher(r).replaceAll("$1$2:" + Matcher.quoteReplacement(MASK) + "@");
    return USER_INFO.matcher(r).replaceAll("$1:" + Matcher.quoteReplacement(MASK) + "@");
  }

  /**
   * {@code text} {@linkplain #mask(String) masked}, and before that every occurrence of a password
   * that {@code url} holds (as written and %-decoded) replaced, whatever surrounds it. Null {@code
   * url}: {@link #mask(String)} alone.
   */
  public static String mask(String text, String url) {
    if (text == null) {
      return null;
    }
    String r = text;
    if (url != null) {
      for (String secret : passwords(url)) {
        if (secret.length() >= SHORTEST_MASKED_VALUE) {
          r = r.replace(secret, MASK);
        }
      }
    }
    return mask(r);
  }

  /**
   * {@code t} for a log line: a throwable of the same stack, whose messages (its own and every
   * cause's, {@code toString()} form) are {@linkplain #mask(String) masked}. Null for null.
   */
  public static Throwable mask(Throwable t) {
    if (t == null) {
      return null;
    }
    Masked out = new Masked(mask(t.toString()), mask(t.getCause() == t ? null : t.getCause()));
    out.setStackTrace(t.getStackTrace());
    for (Throwable s : t.getSuppressed()) {
      out.addSuppressed(mask(s));
    }
    return out;
  }

  /** The passwords {@code url} holds, longest first so that none is masked only in part. */
  private static List<String> passwords(String url) {
    Set<String> found = new LinkedHashSet<>();
    Matcher m = PASSWORD_VALUE.matcher(url);
    while (m.find()) {
      addWithDecoded(found, m.group(1));
    }
    // The user info: from "//" (or "jdbc:postgresql:") to the last '@' before the query.
    int query = url.indexOf('?');
    String rest = query < 0 ? url : url.substring(0, query);
    int slashes = rest.indexOf("://");
    if (slashes >= 0) {
      rest = rest.substring(slashes + 3);
    } else if (rest.regionMatches(true, 0, JDBC_PREFIX, 0, JDBC_PREFIX.length())) {
      rest = rest.substring(JDBC_PREFIX.length());
    }
    int at = rest.lastIndexOf('@');
    int colon = rest.indexOf(':');
    if (at > 0 && colon >= 0 && colon < at) {
      addWithDecoded(found, rest.substring(colon + 1, at));
    }
    List<String> out = new ArrayList<>(found);
    out.sort((a, b) -> b.length() - a.length());
    return out;
  }

  private static void addWithDecoded(Set<String> out, String raw) {
    out.add(raw);
    try {
      out.add(URLDecoder.decode(raw, java.nio.charset.StandardCharsets.UTF_8));
    } catch (IllegalArgumentException e) {
      // not %-encoded: the raw value is masked
    }
  }

  /** A throwable that prints as the masked text of another one. */
  private static final class Masked extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final String text;

    Masked(String text, Throwable cause) {
      super(text, cause, true, true);
      this.text = text;
    }

    @Override
    public String toString() {
      return text;
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
      return this;
    }
  }
}
