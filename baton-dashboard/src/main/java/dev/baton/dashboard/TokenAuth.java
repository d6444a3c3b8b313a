package dev.baton.dashboard;

import com.sun.net.httpserver.HttpExchange;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Locale;

/**
 * {@link DashboardAuth#bearerToken}: a request carries the token in {@code Authorization: Bearer
 * <token>} (the scheme in any case, as RFC 9110 has it) or, from a browser, in the cookie that
 * signing in on the dashboard's {@code 401} page sets. Compared in constant time.
 */
final class TokenAuth implements DashboardAuth {

  /** The cookie a browser that signed in carries: the token, base64url-encoded. */
  static final String COOKIE = "baton_token";

  private static final String SCHEME = "bearer";

  private final byte[] token;

  TokenAuth(String token) {
    this.token = token.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public boolean allows(HttpExchange exchange) {
    String given = exchange.getRequestHeaders().getFirst("Authorization");
    if (given != null) {
      String g = given.strip();
      int space = g.indexOf(' ');
      return space > 0
          && g.substring(0, space).toLowerCase(Locale.ROOT).equals(SCHEME)
          && accepts(g.substring(space + 1).strip());
    }
    String cookie = Request.cookie(exchange, COOKIE);
    if (cookie == null) {
      return false;
    }
    try {
      return MessageDigest.isEqual(token, Base64.getUrlDecoder().decode(cookie));
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /** Whether {@code given} is the token. */
  boolean accepts(String given) {
    return given != null && MessageDigest.isEqual(token, given.getBytes(StandardCharsets.UTF_8));
  }

  /** The value of the sign-in cookie for this token. */
  String cookieValue() {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(token);
  }

  @Override
  public String user(HttpExchange exchange) {
    return "token";
  }

  @Override
  public String challenge() {
    return "Bearer realm=\"baton\"";
  }
}
