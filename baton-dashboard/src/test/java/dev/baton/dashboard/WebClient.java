package dev.baton.dashboard;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A plain HTTP client of a dashboard: keeps its CSRF cookie like a browser would. */
final class WebClient {
  private static final Pattern COOKIE = Pattern.compile("baton_csrf=([A-Za-z0-9_-]+)");

  private final HttpClient http = HttpClient.newHttpClient();
  private final URI root;
  private String token;

  private final String[] headers;

  /** A client of the dashboard at {@code root} sending {@code headers} (name, value...) always. */
  WebClient(URI root, String... headers) {
    this.root = root;
    this.headers = headers;
  }

  /** A client of the dashboard at {@code root} signed in with basic auth as {@code user}. */
  static WebClient basicAuth(URI root, String user, String password) {
    return new WebClient(
        root,
        "Authorization",
        "Basic "
            + java.util.Base64.getEncoder()
                .encodeToString(
                    (user + ":" + password).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
  }

  /** The CSRF token the dashboard gave this client (asks for one on first use). */
  String token() throws IOException, InterruptedException {
    if (token == null) {
      HttpResponse<String> r = send(HttpRequest.newBuilder(root).GET());
      Matcher m = COOKIE.matcher(r.headers().firstValue("Set-Cookie").orElse(""));
      if (!m.find()) {
        throw new AssertionError("no CSRF cookie in " + r.headers().map());
      }
      token = m.group(1);
    }
    return token;
  }

  HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(root.resolve(path)).GET());
  }

  /** A POST of the JSON API with the cookie and the header. */
  HttpResponse<String> post(String path) throws IOException, InterruptedException {
    return send(
        HttpRequest.newBuilder(root.resolve(path))
            .header("Cookie", "baton_csrf=" + token())
            .header("X-Baton-Csrf", token())
            .POST(HttpRequest.BodyPublishers.noBody()));
  }

  /** A form POST as a page sends it: the cookie, and {@code form} as the body. */
  HttpResponse<String> postForm(String path, String form, String... headers)
      throws IOException, InterruptedException {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(root.resolve(path))
            .header("Cookie", "baton_csrf=" + token())
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(form));
    for (int i = 0; i + 1 < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return send(b);
  }

  HttpResponse<String> send(HttpRequest.Builder b) throws IOException, InterruptedException {
    for (int i = 0; i + 1 < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
