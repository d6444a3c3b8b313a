package dev.baton.dashboard;

import com.sun.net.httpserver.HttpExchange;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Map;
import java.util.Objects;

/**
 * Who may use the dashboard: checked on every request, assets included, before anything is read. A
 * request that {@link #allows} refuses gets {@code 401} with {@link #challenge()} as its {@code
 * WWW-Authenticate} header (when not empty); an allowed one that {@link #authorizes} refuses gets
 * {@code 403}. Implementations must be thread-safe; they run on the server's request threads.
 *
 * <p>An application that has its own login puts its check here (a session cookie, a header set by a
 * proxy that authenticated the user). Under a servlet container ({@link DashboardServlet}) {@link
 * #principal()} and {@link #principalInRole} trust the container's authentication (Spring Security
 * included).
 */
public interface DashboardAuth {

  /** Whether {@code exchange} may be served. Reads headers only; never the body. */
  boolean allows(HttpExchange exchange);

  /**
   * Whether the user {@link #allows} let in may be served; a refusal is a {@code 403}. Default:
   * everyone allowed is.
   */
  default boolean authorizes(HttpExchange exchange) {
    return true;
  }

  /**
   * Who the user of {@code exchange} is, recorded on every action it takes (who paused a queue,
   * retried or cancelled a job) and written to the log with it: the basic auth user, the
   * container's principal, the token's name for a bearer token ({@code token} for {@link
   * #bearerToken}). Default: the name of the principal the server authenticated, else null, and the
   * dashboard records its own name ({@code dashboard}, or the client's node id). Called only on
   * requests {@link #allows} let in.
   */
  default String user(HttpExchange exchange) {
    return exchange.getPrincipal() == null ? null : exchange.getPrincipal().getUsername();
  }

  /**
   * The {@code WWW-Authenticate} header of a refusal, e.g. {@code Bearer realm="baton"}; empty for
   * none.
   */
  String challenge();

  /**
   * Everyone is allowed: for a dashboard bound to 127.0.0.1, or behind a proxy that checks. {@link
   * Dashboard#serve} refuses to serve it beyond loopback unless {@link
   * Dashboard.Builder#allowAnonymous()} says so.
   */
  static DashboardAuth none() {
    return NoAuth.INSTANCE;
  }

  /**
   * Requests must carry {@code Authorization: Bearer <token>} (the scheme in any case), or come
   * from a browser that signed in with the token on the dashboard's {@code 401} page, which sets an
   * {@code HttpOnly}, {@code SameSite=Strict} cookie holding it for the browser's session. Compared
   * in constant time. Actions are recorded as taken by {@code token}; to record who acted, give
   * each person or script a token of its own with {@link #bearerTokens}.
   *
   * @throws IllegalArgumentException if {@code token} is shorter than 16 characters
   */
  static DashboardAuth bearerToken(String token) {
    Objects.requireNonNull(token, "token");
    return bearerTokens(Map.of("token", token));
  }

  /**
   * As {@link #bearerToken}, with several tokens, each by a name: a request carrying one of them is
   * allowed, and its actions are recorded (and logged) as taken by that token's name, so a token
   * per person or script says who acted. The tokens themselves are never shown or logged.
   *
   * @param tokensByName name to token; a name is 1 to 64 letters, digits, {@code .}, {@code _},
   *     {@code -} or {@code @}; a token at least 16 characters; no two tokens alike
   * @throws IllegalArgumentException if there is no token, or a name or token is not as above (the
   *     message names the name, never the token)
   */
  static DashboardAuth bearerTokens(Map<String, String> tokensByName) {
    Objects.requireNonNull(tokensByName, "tokensByName");
    if (tokensByName.isEmpty()) {
      throw new IllegalArgumentException(
          "invalid dashboard tokens: expected at least one, got none");
    }
    java.util.Set<String> seen = new java.util.HashSet<>();
    tokensByName.forEach(
        (name, token) -> {
          if (name == null || !name.matches("[A-Za-z0-9._@-]{1,64}")) {
            throw new IllegalArgumentException(
                "invalid dashboard token name: expected 1 to 64 letters, digits, '.', '_', '-' or"
                    + " '@', got "
                    + (name == null ? "null" : "\"" + name.replaceAll("[^ -~]", "?") + "\""));
          }
          if (token == null || token.length() < 16) {
            throw new IllegalArgumentException(
                "invalid dashboard token "
                    + name
                    + ": expected at least 16 characters, got "
                    + (token == null ? 0 : token.length()));
          }
          if (!seen.add(token)) {
            throw new IllegalArgumentException(
                "invalid dashboard token " + name + ": the same token is given another name too");
          }
        });
    return new TokenAuth(tokensByName);
  }

  /**
   * Requests must carry HTTP basic credentials {@code user}:{@code password} (browsers ask for
   * them). Compared in constant time. Use it over TLS (a proxy in front) beyond 127.0.0.1.
   *
   * @throws IllegalArgumentException if {@code user} is empty or contains {@code :}, or {@code
   *     password} is empty
   */
  static DashboardAuth basic(String user, String password) {
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(password, "password");
    if (user.isEmpty() || user.contains(":") || password.isEmpty()) {
      throw new IllegalArgumentException(
          "invalid dashboard basic auth: expected a non-empty user without ':' and a non-empty"
              + " password");
    }
    String credentials =
        Base64.getEncoder()
            .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    byte[] want = ("Basic " + credentials).getBytes(StandardCharsets.UTF_8);
    return new DashboardAuth() {
      @Override
      public boolean allows(HttpExchange exchange) {
        String given = exchange.getRequestHeaders().getFirst("Authorization");
        return given != null
            && MessageDigest.isEqual(want, given.strip().getBytes(StandardCharsets.UTF_8));
      }

      @Override
      public String user(HttpExchange exchange) {
        return user;
      }

      @Override
      public String challenge() {
        return "Basic realm=\"baton\", charset=\"UTF-8\"";
      }
    };
  }

  /**
   * Requests must come with the principal that the server authenticated: under {@link
   * DashboardServlet} the container's (with Spring Security, the authenticated user), on the JDK's
   * server the one an {@code Authenticator} on the context set. No principal is a {@code 401}
   * without a challenge: the application's own security answers for how to log in.
   */
  static DashboardAuth principal() {
    return new PrincipalAuth(null);
  }

  /**
   * As {@link #principal()}, and the user must be in {@code role} as the servlet container says
   * ({@code HttpServletRequest.isUserInRole}; with Spring Security the authority {@code ROLE_}
   * followed by {@code role}), else {@code 403}. On the JDK's server, which knows no roles, every
   * user is refused.
   *
   * @throws IllegalArgumentException if {@code role} is blank
   */
  static DashboardAuth principalInRole(String role) {
    Objects.requireNonNull(role, "role");
    if (role.isBlank()) {
      throw new IllegalArgumentException("invalid dashboard role: expected a role name, got blank");
    }
    return new PrincipalAuth(role);
  }
}
