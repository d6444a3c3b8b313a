package dev.baton.dashboard;

import com.sun.net.httpserver.HttpExchange;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@link DashboardAuth#bearerToken} and {@link DashboardAuth#bearerTokens}: a request carries one
 * of the tokens in {@code Authorization: Bearer <token>} (the scheme in any case, as RFC 9110 has
 * it) or, from a browser, in the cookie that signing in on the dashboard's {@code 401} page sets.
 * Compared in constant time with every token, so the time taken does not say which one matched. An
 * action is recorded as taken by the matching token's name; the token itself is never shown or
 * logged.
 */
final class TokenAuth implements DashboardAuth {

  /** The cookie a browser that signed in carries: the token, base64url-encoded. */
  static final String COOKIE = "baton_token";

  private static final String SCHEME = "bearer";

  private record Named(String name, byte[] token) {}

  private final List<Named> tokens;

  /** Tokens by name; checked by {@link DashboardAuth#bearerTokens}. */
  TokenAuth(Map<String, String> tokensByName) {
    List<Named> list = new ArrayList<>();
    tokensByName.forEach((n, t) -> list.add(new Named(n, t.getBytes(StandardCharsets.UTF_8))));
    this.tokens = List.copyOf(list);
  }

  @Override
  public boolean allows(HttpExchange exchange) {
    return nameOf(exchange) != null;
  }

  /** The name of the token {@code exchange} carries, or null when it carries none of them. */
  private String nameOf(HttpExchange exchange) {
    String given = exchange.getRequestHeaders().getFirst("Authorization");
    if (given != null) {
      String g = given.strip();
      int space = g.indexOf(' ');
      if (space > 0 && g.substring(0, space).toLowerCase(Locale.ROOT).equals(SCHEME)) {
        return match(g.substring(space + 1).strip().getBytes(StandardCharsets.UTF_8));
      }
      return null;
    }
    String cookie = Request.cookie(exchange, COOKIE);
    if (cookie == null) {
      return null;
    }
    try {
      return match(Base64.getUrlDecoder().decode(cookie));
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** The name of the token {@code given} is, or null; compares with every token. */
  private String match(byte[] given) {
    String found = null;
    for (Named t : tokens) {
      if (MessageDigest.isEqual(t.token(), given) && found == null) {
        found = t.name();
      }
    }
    return found;
  }

  /** Whether {@code given} is one of the tokens. */
  boolean accepts(String given) {
    return given != null && match(given.getBytes(StandardCharsets.UTF_8)) != null;
  }

  /** The value of the sign-in cookie for {@code token}, one that {@link #accepts}. */
  static String cookieValue(String token) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(token.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public String user(HttpExchange exchange) {
    String name = nameOf(exchange);
    return name == null ? "token" : name;
  }

  @Override
  public String challenge() {
    return "Bearer realm=\"baton\"";
  }
}
