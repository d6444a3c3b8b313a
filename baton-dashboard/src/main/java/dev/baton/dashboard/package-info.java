/**
 * The Baton dashboard: a web UI and a JSON API over a Baton schema, served by the JDK's HTTP server
 * or a servlet container. {@link dev.baton.dashboard.Dashboard} builds it and serves it or hands
 * out its handler; {@link dev.baton.dashboard.DashboardServlet} mounts it on a servlet container;
 * {@link dev.baton.dashboard.DashboardAuth} is the authentication hook. Everything else here is not
 * public API. Uses only baton-core's public API ({@code dev.baton}, {@code dev.baton.admin}).
 */
package dev.baton.dashboard;
