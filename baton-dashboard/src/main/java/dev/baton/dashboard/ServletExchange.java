package dev.baton.dashboard;

import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpPrincipal;
import com.sun.net.httpserver.HttpServer;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * A servlet request and its response seen as the JDK server's exchange, so that {@link
 * DashboardHandler} serves both the same way. Its context path is the servlet's mount point (the
 * application's context path and the servlet path, e.g. {@code /shop/baton}), from which the
 * handler makes its links, its cookie's path and its redirects. Confined to the request's thread.
 */
final class ServletExchange extends HttpExchange {
  private static final java.util.regex.Pattern STRAY_PERCENT =
      java.util.regex.Pattern.compile("%(?![0-9A-Fa-f]{2})");

  private final HttpServletRequest request;
  private final HttpServletResponse response;
  private final HttpContext context;
  private final URI uri;
  private final Headers requestHeaders = new Headers();
  private final Headers responseHeaders = new Headers();
  private InputStream in;
  private OutputStream out;
  private int status = -1;

  ServletExchange(HttpServletRequest request, HttpServletResponse response, HttpHandler handler) {
    this.request = request;
    this.response = response;
    this.context = new MountContext(request.getContextPath() + request.getServletPath(), handler);
    String query = request.getQueryString();
    String raw = request.getRequestURI() + (query == null ? "" : "?" + query);
    URI parsed;
    try {
      parsed = new URI(raw);
    } catch (java.net.URISyntaxException e) {
      // A container passes a query on as sent, stray '%' included: read such a '%' as itself, so
      // that the parameter's own check refuses the value with the dashboard's 400 page.
      try {
        parsed = new URI(STRAY_PERCENT.matcher(raw).replaceAll("%25"));
      } catch (java.net.URISyntaxException again) {
        throw BadRequest.of("malformed request URI: " + again.getMessage());
      }
    }
    this.uri = parsed;
    for (String name : Collections.list(request.getHeaderNames())) {
      requestHeaders.put(name, Collections.list(request.getHeaders(name)));
    }
  }

  /** Whether the container says the user is in {@code role}. */
  boolean isUserInRole(String role) {
    return request.isUserInRole(role);
  }

  @Override
  public Headers getRequestHeaders() {
    return requestHeaders;
  }

  @Override
  public Headers getResponseHeaders() {
    return responseHeaders;
  }

  @Override
  public URI getRequestURI() {
    return uri;
  }

  @Override
  public String getRequestMethod() {
    return request.getMethod();
  }

  @Override
  public HttpContext getHttpContext() {
    return context;
  }

  @Override
  public void close() {
    try {
      if (status < 0) {
        sendResponseHeaders(500, -1);
      }
      getResponseBody().close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The body. A form's comes from the container's parameters: a filter before the servlet (Spring
   * Security's CSRF check, say) may have read the stream already, and the parameters keep it.
   */
  @Override
  public InputStream getRequestBody() {
    if (in == null) {
      String type = request.getContentType();
      if (type != null && type.startsWith("application/x-www-form-urlencoded")) {
        in = new ByteArrayInputStream(formBody().getBytes(StandardCharsets.UTF_8));
      } else {
        try {
          in = request.getInputStream();
        } catch (IOException e) {
          throw BadRequest.of("cannot read the request body: " + e.getMessage());
        }
      }
    }
    return in;
  }

  private String formBody() {
    StringJoiner body = new StringJoiner("&");
    for (Map.Entry<String, String[]> p : request.getParameterMap().entrySet()) {
      for (String v : p.getValue()) {
        body.add(
            URLEncoder.encode(p.getKey(), StandardCharsets.UTF_8)
                + "="
                + URLEncoder.encode(v, StandardCharsets.UTF_8));
      }
    }
    return body.toString();
  }

  @Override
  public OutputStream getResponseBody() {
    if (out == null) {
      try {
        out = response.getOutputStream();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return out;
  }

  /** Sets the status and headers; {@code length} as the JDK server takes it (-1: no body). */
  @Override
  public void sendResponseHeaders(int code, long length) {
    if (status >= 0) {
      throw new IllegalStateException("headers already sent");
    }
    status = code;
    response.setStatus(code);
    for (Map.Entry<String, List<String>> h : responseHeaders.entrySet()) {
      // A header a filter wrote before (Spring Security's Cache-Control, X-Frame-Options) is
      // replaced, not repeated; cookies add to the ones already set (a session's).
      boolean replace = !h.getKey().equalsIgnoreCase("Set-Cookie");
      for (String v : h.getValue()) {
        if (replace) {
          response.setHeader(h.getKey(), v);
          replace = false;
        } else {
          response.addHeader(h.getKey(), v);
        }
      }
    }
    if (length > 0) {
      response.setContentLengthLong(length);
    } else if (length < 0) {
      response.setContentLength(0);
    }
  }

  @Override
  public InetSocketAddress getRemoteAddress() {
    return InetSocketAddress.createUnresolved(request.getRemoteAddr(), request.getRemotePort());
  }

  @Override
  public int getResponseCode() {
    return status;
  }

  @Override
  public InetSocketAddress getLocalAddress() {
    return InetSocketAddress.createUnresolved(request.getLocalAddr(), request.getLocalPort());
  }

  @Override
  public String getProtocol() {
    return request.getProtocol();
  }

  @Override
  public Object getAttribute(String name) {
    return request.getAttribute(name);
  }

  @Override
  public void setAttribute(String name, Object value) {
    request.setAttribute(name, value);
  }

  @Override
  public void setStreams(InputStream i, OutputStream o) {
    if (i != null) {
      in = i;
    }
    if (o != null) {
      out = o;
    }
  }

  /** The container's authenticated user, or null. */
  @Override
  public HttpPrincipal getPrincipal() {
    Principal p = request.getUserPrincipal();
    return p == null ? null : new HttpPrincipal(p.getName(), "servlet");
  }

  /** The servlet's mount point as the JDK server's context: only its path and handler are used. */
  private static final class MountContext extends HttpContext {
    private final String path;
    private final HttpHandler handler;

    MountContext(String path, HttpHandler handler) {
      this.path = path;
      this.handler = handler;
    }

    @Override
    public HttpHandler getHandler() {
      return handler;
    }

    @Override
    public void setHandler(HttpHandler h) {
      throw new UnsupportedOperationException("the dashboard's handler is fixed");
    }

    @Override
    public String getPath() {
      return path;
    }

    @Override
    public HttpServer getServer() {
      return null;
    }

    @Override
    public Map<String, Object> getAttributes() {
      return Map.of();
    }

    @Override
    public List<Filter> getFilters() {
      return List.of();
    }

    @Override
    public com.sun.net.httpserver.Authenticator setAuthenticator(
        com.sun.net.httpserver.Authenticator auth) {
      throw new UnsupportedOperationException("the dashboard authenticates with DashboardAuth");
    }

    @Override
    public com.sun.net.httpserver.Authenticator getAuthenticator() {
      return null;
    }
  }
}
