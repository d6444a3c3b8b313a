package dev.baton.spring.boot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.springframework.core.env.Environment;

/**
 * GETs JSON from the test application's real HTTP server (and statuses from the dashboard's), with
 * the JDK's client: Boot 3 and Boot 4 keep their test HTTP clients in different packages, and these
 * tests compile against both.
 */
final class Http {
  private static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A response: status and parsed body. */
  record Response(int status, JsonNode body) {}

  private Http() {}

  /** GETs {@code path} from the server of {@code environment}'s application. */
  static Response get(Environment environment, String path) throws Exception {
    String port = environment.getRequiredProperty("local.server.port");
    HttpResponse<String> r =
        CLIENT.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    return new Response(r.statusCode(), JSON.readTree(r.body()));
  }

  /** The status of a GET of {@code uri}, with the {@code Authorization} header when not null. */
  static int status(URI uri, String authorization) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30));
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return CLIENT.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
  }
}
