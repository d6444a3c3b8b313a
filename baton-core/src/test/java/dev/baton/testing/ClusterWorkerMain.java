package dev.baton.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.Counters;
import dev.baton.JobArgs;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * A Baton worker run as a child JVM by {@code ClusterChaosIT}: a full cluster member (maintenance
 * on, so it may lead) whose handler delivers each job to an HTTP receiver in the test JVM.
 *
 * <p>Arguments: {@code <jdbc url> <schema> <node id> <receiver url> <concurrency> <lease ms>
 * <leader ttl ms> <work ms>}; a leader ttl of 0 keeps the default. It works queue {@link #QUEUE};
 * the handler of {@link Delivery} works for {@code work ms} (so the node always holds jobs in
 * flight), then sends {@code POST <receiver url>?key=<idempotency key>&fence=<fence>&node=<node
 * id>}, ignoring interrupts throughout (so a holder that lost its job while frozen still delivers,
 * late, with its old fence). It returns normally on every answer of the receiver ({@code applied},
 * {@code duplicate} or {@code stale}): a stale holder's completion is then dropped by the fence and
 * counted as {@code fenced}. Any other answer, or an I/O error, fails the attempt.
 *
 * <p>Stdout: {@code ready <node id>} once started; on {@code stop} (or end of stdin) it stops the
 * client gracefully and prints {@code counters node=<id> claimed=<n> completed=<n> fenced=<n>
 * leases_lost=<n> rescued=<n> handed_back=<n> retried=<n>}, then exits 0. Its database sessions
 * carry the node id as {@code application_name}. Logs go to stderr.
 */
public final class ClusterWorkerMain {

  /** The queue the children work. */
  public static final String QUEUE = "chaos";

  /**
   * One delivery to the receiver; its idempotency key is the job's.
   *
   * @param n the job's number in the run
   */
  public record Delivery(int n) implements JobArgs {}

  private ClusterWorkerMain() {}

  public static void main(String[] argv) throws Exception {
    String url = argv[0];
    String schema = argv[1];
    String nodeId = argv[2];
    String receiver = argv[3];
    int concurrency = Integer.parseInt(argv[4]);
    Duration lease = Duration.ofMillis(Long.parseLong(argv[5]));
    long leaderTtlMillis = Long.parseLong(argv[6]);
    long workMillis = Long.parseLong(argv[7]);

    HikariConfig cfg = ChildMains.poolConfig(url, "child-" + nodeId, nodeId, 10);
    cfg.setConnectionTimeout(5_000);
    HikariDataSource ds = new HikariDataSource(cfg);
    HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    BatonConfig.Builder config =
        BatonConfig.builder()
            .schema(schema)
            .nodeId(nodeId)
            .queue(QUEUE, concurrency)
            .lease(lease)
            .pollInterval(Duration.ofMillis(200))
            .maintenanceEnabled(true)
            .maintenanceInterval(Duration.ofMillis(250))
            .stopTimeout(Duration.ofSeconds(5));
    if (leaderTtlMillis > 0) {
      config.leaderTtl(Duration.ofMillis(leaderTtlMillis));
    }
    Baton baton =
        Baton.builder(ds)
            .config(config.build())
            .handler(
                Delivery.class,
                (ctx, args) -> {
                  // Works, then delivers, without heeding interruption (as a handler blocked in
                  // I/O that ignores interrupts would): a holder that lost its job while frozen
                  // still delivers after it thaws, with its stale fence, for the receiver to
                  // refuse.
                  workIgnoringInterrupts(Duration.ofMillis(workMillis));
                  URI uri =
                      URI.create(
                          receiver
                              + "?key="
                              + URLEncoder.encode(ctx.idempotencyKey(), StandardCharsets.UTF_8)
                              + "&fence="
                              + ctx.fence()
                              + "&node="
                              + URLEncoder.encode(nodeId, StandardCharsets.UTF_8));
                  // join(), unlike send(), does not give up when the thread is interrupted.
                  HttpResponse<String> answer =
                      http.sendAsync(
                              HttpRequest.newBuilder(uri)
                                  .timeout(Duration.ofSeconds(10))
                                  .POST(HttpRequest.BodyPublishers.noBody())
                                  .build(),
                              HttpResponse.BodyHandlers.ofString())
                          .join();
                  String body = answer.body().trim();
                  if (answer.statusCode() != 200
                      || !(body.equals("applied")
                          || body.equals("duplicate")
                          || body.equals("stale"))) {
                    throw new IOException(
                        "receiver answered " + answer.statusCode() + " " + body + " for " + uri);
                  }
                })
            .build();
    baton.start();
    ChildMains.say("ready " + nodeId);

    ChildMains.awaitStop();
    baton.stop();
    Counters c = ChildMains.awaitSettled(baton);
    ChildMains.say(
        "counters node="
            + nodeId
            + " claimed="
            + c.claimed()
            + " completed="
            + c.completed()
            + " fenced="
            + c.fenced()
            + " leases_lost="
            + c.leasesLost()
            + " rescued="
            + c.rescued()
            + " handed_back="
            + c.handedBack()
            + " retried="
            + c.retried());
    ds.close();
    System.exit(0);
  }

  /** Waits {@code work}, clearing any interrupt that comes meanwhile or came before. */
  private static void workIgnoringInterrupts(Duration work) {
    long until = System.nanoTime() + work.toNanos();
    for (long left = work.toNanos(); left > 0; left = until - System.nanoTime()) {
      LockSupport.parkNanos(left);
      Thread.interrupted();
    }
    Thread.interrupted();
  }
}
