package dev.baton.dashboard;

import com.sun.net.httpserver.HttpExchange;

/**
 * Trusts the server's authentication: {@link DashboardAuth#principal()} and {@link
 * DashboardAuth#principalInRole}. Kept apart from the servlet API's types so that the standalone
 * dashboard loads without them.
 */
final class PrincipalAuth implements DashboardAuth {
  private final String role;

  PrincipalAuth(String role) {
    this.role = role;
  }

  @Override
  public boolean allows(HttpExchange exchange) {
    return exchange.getPrincipal() != null;
  }

  @Override
  public boolean authorizes(HttpExchange exchange) {
    if (role == null) {
      return true;
    }
    return exchange instanceof ServletExchange s && s.isUserInRole(role);
  }

  @Override
  public String challenge() {
    return "";
  }
}
