package dev.baton.cli.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * The demo's mail provider: an HTTP server on loopback that sends (records) emails, as a real
 * provider with idempotency support would.
 *
 * <p>{@code POST /v1/emails} with headers {@code Idempotency-Key} and {@code Baton-Fence} (and
 * {@code Baton-Node}, for the record) and a JSON body {@code {"order_id": 1, "to": "..."}}:
 *
 * <ul>
 *   <li>a fence lower than the highest this provider has seen for the key: {@code 409}, nothing
 *       sent: the sender lost the job to a newer holder (a stale write refused);
 *   <li>a key it has sent already: {@code 200} with the first answer and {@code
 *       Idempotent-Replayed: true}, nothing sent (a repeat suppressed);
 *   <li>else the email is sent: a row in the ledger table, then {@code 200} with its message id.
 * </ul>
 *
 * <p>Per key, these steps run one request at a time. The ledger ({@code <shop>.mail_ledger}) is the
 * provider's record of what it delivered, written before it answers; the demo's checks read it.
 * With {@code unsafe} the provider ignores keys and fences (every request sends), which the demo
 * uses to show that its checks catch double emails.
 */
final class MailProvider implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Called by the provider at the two points where the demo injects its faults. */
  interface Faults {
    /** Before the request of {@code node} is looked at (its body is read already). */
    void beforeAccept(String node, String key, long fence);

    /** After the email of {@code node} was sent and recorded, before the answer goes out. */
    void afterSend(String node, String key, long fence);
  }

  private record Sent(String messageId, long orderId) {}

  private static final class KeyState {
    long highestFence = Long.MIN_VALUE;
    Sent sent;
  }

  private final HttpServer server;
  private final ExecutorService executor;
  private final DataSource ledgerDb;
  private final String ledgerTable;
  private final boolean unsafe;
  private final Map<String, KeyState> keys = new HashMap<>();
  private volatile Faults faults;
  private final AtomicLong sent = new AtomicLong();
  private final AtomicLong replayed = new AtomicLong();
  private final AtomicLong staleRefused = new AtomicLong();
  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong messageIds = new AtomicLong();

  private MailProvider(HttpServer server, DataSource ledgerDb, String shopSchema, boolean unsafe) {
    this.server = server;
    this.ledgerDb = ledgerDb;
    this.ledgerTable = shopSchema + ".mail_ledger";
    this.unsafe = unsafe;
    // Requests wait while the demo freezes a pod; those waits must not block the others.
    this.executor =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "demo-mail-provider");
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(executor);
    server.createContext("/v1/emails", this::handle);
  }

  /** Starts the provider on 127.0.0.1 and an ephemeral port; the ledger table must exist. */
  static MailProvider start(DataSource ledgerDb, String shopSchema, boolean unsafe)
      throws IOException {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    MailProvider p = new MailProvider(server, ledgerDb, shopSchema, unsafe);
    server.start();
    return p;
  }

  /** The address pods post to. */
  URI uri() {
    InetSocketAddress a = server.getAddress();
    return URI.create("http://" + a.getHostString() + ":" + a.getPort() + "/v1/emails");
  }

  /** Sets the fault hooks (null: none). */
  void faults(Faults faults) {
    this.faults = faults;
  }

  /** Emails sent (distinct keys, or every request when unsafe). */
  long sent() {
    return sent.get();
  }

  /** Repeats answered with the first answer, nothing sent. */
  long replayed() {
    return replayed.get();
  }

  /** Requests refused because their fence was lower than the key's highest. */
  long staleRefused() {
    return staleRefused.get();
  }

  /** Requests received. */
  long requests() {
    return requests.get();
  }

  /** Whether the email with {@code key} has been sent. */
  boolean hasSent(String key) {
    synchronized (keys) {
      KeyState s = keys.get(key);
      return s != null && s.sent != null;
    }
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      requests.incrementAndGet();
      if (!"POST".equals(ex.getRequestMethod())) {
        reply(ex, 405, error("use POST"));
        return;
      }
      JsonNode body;
      try (InputStream in = ex.getRequestBody()) {
        body = JSON.readTree(in.readAllBytes());
      }
      String key = ex.getRequestHeaders().getFirst("Idempotency-Key");
      String fenceText = ex.getRequestHeaders().getFirst("Baton-Fence");
      String node = ex.getRequestHeaders().getFirst("Baton-Node");
      long fence;
      try {
        fence = Long.parseLong(fenceText);
      } catch (NumberFormatException e) {
        reply(ex, 400, error("missing or malformed Baton-Fence header: " + fenceText));
        return;
      }
      if (key == null || key.isBlank() || body == null || !body.hasNonNull("order_id")) {
        reply(ex, 400, error("need an Idempotency-Key header and a body with order_id"));
        return;
      }
      long orderId = body.get("order_id").asLong();
      Faults f = faults;
      if (f != null) {
        f.beforeAccept(node, key, fence);
      }
      ObjectNode answer = JSON.createObjectNode();
      int status = 200;
      boolean replay = false;
      KeyState state;
      synchronized (keys) {
        state = keys.computeIfAbsent(key, k -> new KeyState());
      }
      // One request per key at a time: the check, the send and the record happen together.
      synchronized (state) {
        if (!unsafe && fence < state.highestFence) {
          staleRefused.incrementAndGet();
          reply(
              ex,
              409,
              error(
                  "stale fence "
                      + fence
                      + " for key "
                      + key
                      + ": a holder with fence "
                      + state.highestFence
                      + " has sent already"));
          return;
        }
        state.highestFence = Math.max(state.highestFence, fence);
        if (!unsafe && state.sent != null) {
          replay = true;
          replayed.incrementAndGet();
        } else {
          Sent s = new Sent("msg-" + messageIds.incrementAndGet(), orderId);
          record(s, key, fence, node, body.path("to").asText(null));
          synchronized (keys) {
            state.sent = s;
          }
          sent.incrementAndGet();
        }
        answer.put("message_id", state.sent.messageId());
        answer.put("order_id", state.sent.orderId());
      }
      if (!replay && f != null) {
        f.afterSend(node, key, fence);
      }
      if (replay) {
        ex.getResponseHeaders().set("Idempotent-Replayed", "true");
      }
      reply(ex, status, answer);
    } catch (SQLException e) {
      reply(ex, 503, error("ledger unavailable: " + e.getMessage()));
    } catch (RuntimeException e) {
      reply(ex, 500, error(e.toString()));
    }
  }

  private void record(Sent s, String key, long fence, String node, String to) throws SQLException {
    try (Connection c = ledgerDb.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO "
                    + ledgerTable
                    + " (message_id, idempotency_key, order_id, recipient, fence, node)"
                    + " VALUES (?, ?, ?, ?, ?, ?)")) {
      ps.setString(1, s.messageId());
      ps.setString(2, key);
      ps.setLong(3, s.orderId());
      ps.setString(4, to);
      ps.setLong(5, fence);
      ps.setString(6, node);
      ps.executeUpdate();
    }
  }

  private static ObjectNode error(String message) {
    ObjectNode o = JSON.createObjectNode();
    o.put("error", message);
    return o;
  }

  private static void reply(HttpExchange ex, int status, ObjectNode body) {
    try {
      byte[] bytes = JSON.writeValueAsBytes(body);
      ex.getResponseHeaders().set("Content-Type", "application/json");
      ex.sendResponseHeaders(status, bytes.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(bytes);
      }
    } catch (IOException e) {
      // The sender is gone (killed) or stopped listening; what was sent is in the ledger.
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
    try {
      executor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The ledger table, in the shop's schema. */
  static String ledgerDdl(String shopSchema) {
    return "CREATE TABLE "
        + shopSchema
        + ".mail_ledger (message_id text PRIMARY KEY, idempotency_key text NOT NULL,"
        + " order_id bigint NOT NULL, recipient text, fence bigint NOT NULL, node text,"
        + " sent_at timestamptz NOT NULL DEFAULT clock_timestamp())";
  }
}
