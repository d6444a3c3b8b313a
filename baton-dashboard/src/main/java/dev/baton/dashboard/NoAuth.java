package dev.baton.dashboard;

import com.sun.net.httpserver.HttpExchange;

/**
 * {@link DashboardAuth#none()}: one instance, so that {@link Dashboard} can tell a dashboard
 * without authentication from one whose own check lets everyone in.
 */
final class NoAuth implements DashboardAuth {
  static final NoAuth INSTANCE = new NoAuth();

  private NoAuth() {}

  @Override
  public boolean allows(HttpExchange exchange) {
    return true;
  }

  @Override
  public String challenge() {
    return "";
  }
}
