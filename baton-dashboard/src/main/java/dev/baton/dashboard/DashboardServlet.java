package dev.baton.dashboard;

import com.sun.net.httpserver.HttpHandler;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The dashboard as a servlet, to mount on the application's own servlet container under a path
 * mapping such as {@code /baton/*}: its pages, links, assets, redirects and CSRF cookie then live
 * under {@code <context path>/baton}. The same pages, API and checks as {@link
 * Dashboard#handler()}, all methods included (it answers {@code GET}, {@code HEAD} and {@code POST}
 * itself, and {@code 405} to others).
 *
 * <pre>{@code
 * Dashboard dashboard = Dashboard.builder(new BatonAdmin(dataSource, "baton"))
 *     .auth(DashboardAuth.principalInRole("BATON_ADMIN"))
 *     .build();
 * servletContext.addServlet("baton-dashboard", new DashboardServlet(dashboard))
 *     .addMapping("/baton/*");
 * }</pre>
 *
 * <p>With the container's (or Spring Security's) authentication in front, {@link
 * DashboardAuth#principal()} or {@link DashboardAuth#principalInRole} let the dashboard trust it.
 * Needs the Servlet 6.0 API (jakarta.servlet) from the container; the rest of the dashboard runs
 * without it. Thread-safe.
 */
public final class DashboardServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;

  private final transient HttpHandler handler;

  /** A servlet serving {@code dashboard}. */
  public DashboardServlet(Dashboard dashboard) {
    this.handler = Objects.requireNonNull(dashboard, "dashboard").handler();
  }

  @Override
  protected void service(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    if (request.getCharacterEncoding() == null) {
      // Forms are sent in the page's encoding, UTF-8; the container's default is ISO-8859-1.
      request.setCharacterEncoding(StandardCharsets.UTF_8.name());
    }
    ServletExchange exchange;
    try {
      exchange = new ServletExchange(request, response, handler);
    } catch (BadRequest e) {
      response.setStatus(e.status());
      response.setContentType("text/plain; charset=utf-8");
      response.setHeader("X-Content-Type-Options", "nosniff");
      response.setHeader("X-Frame-Options", "DENY");
      response.setHeader("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'");
      response.getWriter().write(e.getMessage());
      return;
    }
    handler.handle(exchange);
  }
}
