package dev.baton.test.example;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.Job;
import dev.baton.JobArgs;
import dev.baton.JobHandler;
import dev.baton.KindSettings;
import dev.baton.PeriodicJob;
import dev.baton.QueueInfo;
import dev.baton.admin.BatonAdmin;
import dev.baton.admin.StatsAdmin;
import dev.baton.migrate.Migrator;
import dev.baton.test.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.ZoneId;
import java.util.Map;
import javax.sql.DataSource;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

// Short examples of the docs pages, quoted there verbatim between the docs markers below
// (DocSnippetsAreCompiledTest) and run here as written.
class DocsExamplesTest {

  @Test
  void configurationReference() {
    // docs:begin configuration
    BatonConfig config =
        BatonConfig.builder()
            .queue("mail", 8)
            .lease(Duration.ofSeconds(60))
            .completedRetention(Duration.ofHours(6))
            .build();
    // docs:end configuration

    assertThat(config.queues().get("mail").concurrency()).isEqualTo(8);
    assertThat(config.lease()).isEqualTo(Duration.ofSeconds(60));
    assertThat(config.completedRetention()).isEqualTo(Duration.ofHours(6));
  }

  record Report(String period) implements JobArgs {}

  @Test
  void clusterReadsAndQueueControlOnTheClient() throws Exception {
    DataSource dataSource = TestDatabase.get().dataSource();
    dropSchemaBaton(dataSource);
    new Migrator(dataSource, "baton").up();
    BatonConfig config = BatonConfig.builder().queue("mail", 8).build();
    JobHandler<Report> reportHandler = (ctx, report) -> {};

    // docs:begin cluster-client
    Baton baton =
        Baton.builder(dataSource)
            .config(config)
            .handler(Report.class, reportHandler)
            .periodic(
                PeriodicJob.cron("nightly-report", "0 3 * * *", new Report("daily"))
                    .withZone(ZoneId.of("Europe/Berlin"))) // the same periodic jobs on every node
            .build();

    baton.pauseQueue("mail"); // no node claims from "mail" until resumed; running jobs finish
    // docs:end cluster-client
    assertThat(baton.queues())
        .extracting(QueueInfo::name, QueueInfo::paused)
        .containsExactly(Tuple.tuple("mail", true));
    // docs:begin cluster-client
    baton.resumeQueue("mail");
    baton.queues(); // name, paused
    baton.nodes(); // id, host, pid, queues, version, started, last heartbeat
    baton.leader(); // node, term, expiry
    // docs:end cluster-client

    assertThat(baton.queues()).extracting(QueueInfo::paused).containsOnly(false);
    dropSchemaBaton(dataSource);
  }

  @Test
  void operatorApiWithoutANode() throws Exception {
    // The docs use the default schema, "baton" (ReadmeUsageTest uses it too, and drops it).
    DataSource dataSource = TestDatabase.get().dataSource();
    dropSchemaBaton(dataSource);
    new Migrator(dataSource, "baton").up();

    // docs:begin cluster-admin
    BatonAdmin admin = new BatonAdmin(dataSource, "baton");
    admin.pause("mail", "ops@example.com"); // recorded as who paused it
    // docs:end cluster-admin
    assertThat(admin.queues())
        .extracting(QueueInfo::name, QueueInfo::paused, QueueInfo::pausedBy)
        .containsExactly(Tuple.tuple("mail", true, "ops@example.com"));
    // docs:begin cluster-admin
    admin.resume("mail", "ops@example.com");
    admin.queues();
    admin.nodes();
    admin.leader();
    admin.stats();
    // docs:end cluster-admin

    assertThat(admin.queues()).extracting(QueueInfo::paused).containsOnly(false);
    dropSchemaBaton(dataSource);
  }

  @Test
  void concurrencyLimits() throws Exception {
    DataSource dataSource = TestDatabase.get().dataSource();
    dropSchemaBaton(dataSource);
    new Migrator(dataSource, "baton").up();

    // docs:begin limits-config
    BatonConfig config =
        BatonConfig.builder()
            .queue("payments", 16) // this node runs up to 16 payments at once...
            .concurrencyLimit("payments", 5) // ...and the whole cluster at most 5
            .build();
    // docs:end limits-config
    assertThat(config.concurrencyLimits()).containsEntry("payments", 5);

    // docs:begin limits-config-key-rate
    BatonConfig keyed =
        BatonConfig.builder()
            .queue("sync", 8)
            .concurrencyLimitPerKey("sync", "customer", 1) // one job per customer at a time
            .queue("mail", 8)
            .rateLimit("mail", 50, Duration.ofSeconds(1)) // 50 starts per second
            .build();
    // docs:end limits-config-key-rate
    assertThat(keyed.rateLimits()).containsKey("mail");

    // docs:begin limits-config-rate-per-key
    BatonConfig rated =
        BatonConfig.builder()
            .queue("mail", 8)
            // at most 10 starts a minute per customer (args ->> 'customer')
            .rateLimitPerKey("mail", "customer", 10, Duration.ofMinutes(1))
            .build();
    // docs:end limits-config-rate-per-key
    assertThat(rated.rateLimits().get("mail").argsField()).isEqualTo("customer");

    // docs:begin limits-admin
    BatonAdmin admin = new BatonAdmin(dataSource, "baton");
    admin.limitConcurrency("payments", 5, "ops@example.com"); // every node, at commit
    admin.limits(); // queue, limit, running, waiting for the limit
    admin.removeConcurrencyLimit("payments", "ops@example.com");
    // docs:end limits-admin
    assertThat(admin.queues()).extracting(QueueInfo::concurrencyLimit).containsOnlyNulls();

    // docs:begin limits-per-key
    admin.limitConcurrencyPerKey("sync", "customer", 1, "ops@example.com"); // args ->> 'customer'
    admin.removeConcurrencyLimitPerKey("sync", "ops@example.com");
    // docs:end limits-per-key

    // docs:begin limits-rate
    admin.limitRate("mail", 50, Duration.ofSeconds(1), "ops@example.com"); // 50 starts per second
    admin.removeRateLimit("mail", "ops@example.com");
    // docs:end limits-rate
    admin.limitRate("mail", 50, Duration.ofSeconds(1), "ops@example.com");
    // docs:begin limits-in-use
    for (StatsAdmin.LimitsInUse l : admin.limitsInUse()) {
      // every limit of the queue (null when not set), what is in use, and what waits for them
      System.out.printf(
          "%s: %d/%s running, %d starts of %s per %s, %d waiting%n",
          l.queue(),
          l.running(),
          l.concurrencyLimit(),
          l.startsInPeriod(),
          l.rateLimit(),
          l.ratePeriod(),
          l.waitingForLimits());
    }
    // docs:end limits-in-use
    assertThat(admin.limitsInUse())
        .extracting(StatsAdmin.LimitsInUse::rateLimit)
        .containsExactly(50);
    admin.removeRateLimit("mail", "ops@example.com");

    // docs:begin limits-rate-per-key
    // at most 10 starts a minute per customer (args ->> 'customer')
    admin.limitRatePerKey("mail", "customer", 10, Duration.ofMinutes(1), "ops@example.com");
    admin.removeRateLimit("mail", "ops@example.com");
    // docs:end limits-rate-per-key

    // docs:begin limits-weights
    // where keys take turns, customer "acme" takes up to 3 jobs a turn, every other key 1
    admin.limitConcurrencyPerKey("sync", "customer", 10, "ops@example.com");
    admin.weighKey("sync", "acme", 3, "ops@example.com");
    Map<String, Integer> weights = admin.keyWeights("sync"); // {acme=3}
    admin.weighKey("sync", "acme", 1, "ops@example.com"); // back to the default
    // docs:end limits-weights
    assertThat(weights).containsExactly(Map.entry("acme", 3));
    assertThat(admin.keyWeights("sync")).isEmpty();
    dropSchemaBaton(dataSource);
  }

  // docs:begin kind-settings
  @KindSettings(
      queue = "mail",
      maxAttempts = 5,
      timeout = "30s",
      retryBase = "10s",
      retryCap = "10m")
  record SendEmail(long orderId, String to) implements JobArgs {}

  // docs:end kind-settings

  @Test
  void kindSettingsOnTheArgsRecordReachTheEnqueue() throws Exception {
    DataSource dataSource = TestDatabase.get().dataSource();
    dropSchemaBaton(dataSource);
    new Migrator(dataSource, "baton").up();
    Baton baton =
        Baton.builder(dataSource)
            .config(BatonConfig.builder().knownKinds("send_email").build())
            .build();

    Job job = baton.enqueue(new SendEmail(42, "a@example.com")).job();

    assertThat(job.queue()).isEqualTo("mail");
    assertThat(job.maxAttempts()).isEqualTo(5);
    dropSchemaBaton(dataSource);
  }

  private static void dropSchemaBaton(DataSource dataSource) throws Exception {
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement()) {
      st.execute("DROP SCHEMA IF EXISTS baton CASCADE");
    }
  }
}
