package dev.baton.cli.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.BatonException;
import dev.baton.Counters;
import dev.baton.JobContext;
import dev.baton.JobHandler;
import dev.baton.SchemaNotMigratedException;
import dev.baton.cli.MetricsEndpoint;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One worker pod of the demo, in its own JVM: a Baton node that sends order emails through the mail
 * provider. Started by {@link ShopDemo} with {@code --key value} arguments; it talks to the demo
 * over stdout ({@code READY <metrics url>}, then {@code COUNTERS <json>} four times a second, and
 * {@code STOPPED <json>} at the end) and stops gracefully when stdin says {@code stop} or closes.
 */
public final class Pod {
  private static final ObjectMapper JSON = new ObjectMapper();

  private Pod() {}

  /** Sends one order's email: the job's idempotency key and fence go to the provider. */
  static final class SendOrderEmailHandler implements JobHandler<OrderEmail> {
    private final HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final URI provider;
    private final String node;

    SendOrderEmailHandler(URI provider, String node) {
      this.provider = provider;
      this.node = node;
    }

    @Override
    public void work(JobContext ctx, OrderEmail args) throws Exception {
      ObjectNode body = JSON.createObjectNode();
      body.put("order_id", args.orderId());
      body.put("to", args.to());
      body.put("subject", "Your order " + args.orderId() + " is confirmed");
      HttpRequest request =
          HttpRequest.newBuilder(provider)
              .timeout(Duration.ofSeconds(30))
              .header("Content-Type", "application/json")
              .header("Idempotency-Key", ctx.idempotencyKey())
              .header("Baton-Fence", Long.toString(ctx.fence()))
              .header("Baton-Node", node)
              .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)))
              .build();
      HttpResponse<String> response =
          http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      if (response.statusCode() == 409) {
        // A newer holder of this job has sent the email; this holder's result must not count
        // (and will not: Baton refuses its completion by the same fence).
        throw new IllegalStateException("mail provider refused a stale fence: " + response.body());
      }
      if (response.statusCode() != 200) {
        throw new IOException(
            "mail provider answered " + response.statusCode() + ": " + response.body());
      }
    }
  }

  /** Runs the pod until stdin says stop; exit 0 after a graceful stop. */
  public static void main(String[] argv) throws Exception {
    Map<String, String> a = new HashMap<>();
    for (int i = 0; i + 1 < argv.length; i += 2) {
      a.put(argv[i].replaceFirst("^--", ""), argv[i + 1]);
    }
    String node = a.get("node");
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    int concurrency = Integer.parseInt(a.get("concurrency"));
    Duration lease = Duration.ofMillis(Long.parseLong(a.get("lease-ms")));

    HikariConfig pool = new HikariConfig();
    pool.setJdbcUrl(a.get("url"));
    pool.setPoolName(node);
    pool.setMaximumPoolSize(concurrency + 6);
    pool.setConnectionTimeout(10_000);
    pool.addDataSourceProperty("ApplicationName", "baton-demo-" + node);
    // A pod may start while the demo terminates every pod connection: do not fail on a first
    // connection that is cut, the pool and the client retry.
    pool.setInitializationFailTimeout(-1);
    // Named, not detected: HikariCP detects the default isolation on its first connection, and if
    // that connection is cut during the detection it keeps -1 and refuses every later connection
    // ("Transaction isolation level -1 not supported"), so the pool never recovers.
    pool.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
    dev.baton.cli.Pools.forBaton(pool);
    BatonConfig config =
        BatonConfig.builder()
            .schema(a.get("schema"))
            .nodeId(node)
            .queue(ShopDemo.QUEUE, concurrency)
            .lease(lease)
            .leaderTtl(lease)
            .maintenanceInterval(Duration.ofMillis(250))
            .stopTimeout(Duration.ofSeconds(10))
            .build();
    try (HikariDataSource ds = new HikariDataSource(pool);
        Baton baton =
            Baton.builder(ds)
                .config(config)
                .handler(
                    OrderEmail.class,
                    new SendOrderEmailHandler(URI.create(a.get("provider")), node))
                .build()) {
      startRetrying(baton);
      ScheduledExecutorService ticker =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "demo-pod-counters");
                t.setDaemon(true);
                return t;
              });
      try (MetricsEndpoint metrics =
          MetricsEndpoint.start(
              baton, a.get("metrics-host"), Integer.parseInt(a.get("metrics-port")))) {
        out.println("READY " + metrics.uri());
        ticker.scheduleAtFixedRate(
            () -> out.println("COUNTERS " + counters(baton)), 0, 250, TimeUnit.MILLISECONDS);
        waitForStop();
        ticker.shutdownNow();
        baton.stop();
        out.println("STOPPED " + counters(baton));
      }
    }
    System.exit(0);
  }

  /**
   * Starts the client, retrying for up to 30 s while the database refuses it (a start fails before
   * anything runs when its first statement is cut, and can be tried again).
   */
  private static void startRetrying(Baton baton) throws InterruptedException {
    long giveUp = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (true) {
      try {
        baton.start();
        return;
      } catch (SchemaNotMigratedException e) {
        throw e;
      } catch (BatonException e) {
        if (System.nanoTime() > giveUp) {
          throw e;
        }
        Thread.sleep(200);
      }
    }
  }

  private static void waitForStop() throws IOException {
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      if (line.strip().equals("stop")) {
        return;
      }
    }
  }

  private static String counters(Baton baton) {
    Counters c = baton.counters();
    ObjectNode o = JSON.createObjectNode();
    o.put("claimed", c.claimed());
    o.put("completed", c.completed());
    o.put("retried", c.retried());
    o.put("discarded", c.discarded());
    o.put("fenced", c.fenced());
    o.put("leases_lost", c.leasesLost());
    o.put("rescued", c.rescued());
    o.put("running", c.running());
    o.put("leader", baton.isLeader());
    return o.toString();
  }
}
