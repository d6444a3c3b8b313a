package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.JobArgs;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class QueuesAndNodesCliTest {
  private static CliRunner cli;

  record Ping() implements JobArgs {}

  @BeforeAll
  static void schema() {
    cli = CliRunner.onNewMigratedSchema();
  }

  @Test
  void pauseAndResumeAQueue() {
    cli.enqueue("q_job", "--queue", "mail");
    CliRunner.Result paused = cli.run("queues", "pause", "mail");
    assertThat(paused.exitCode()).as(paused.err()).isZero();
    assertThat(paused.out()).contains("queue mail paused");

    JsonNode list = cli.run("queues", "list", "--json").json();
    JsonNode mail = null;
    for (JsonNode q : list) {
      if (q.path("name").asText().equals("mail")) {
        mail = q;
      }
    }
    assertThat(mail).isNotNull();
    assertThat(mail.path("paused").asBoolean()).isTrue();
    assertThat(mail.path("paused_by").asText()).startsWith("cli:");

    CliRunner.Result text = cli.run("queues", "list");
    assertThat(text.out()).contains("NAME").contains("mail").contains("yes");

    JsonNode twice = cli.run("queues", "pause", "mail", "--json").json();
    assertThat(twice.path("outcome").asText()).isEqualTo("already_paused");

    CliRunner.Result resumed = cli.run("queues", "resume", "mail");
    assertThat(resumed.exitCode()).isZero();
    assertThat(resumed.out()).isEqualTo("queue mail resumed\n");
    JsonNode notPaused = cli.run("queues", "resume", "mail", "--json").json();
    assertThat(notPaused.path("outcome").asText()).isEqualTo("not_paused");
    assertThat(notPaused.path("queue").path("paused").asBoolean()).isFalse();
  }

  @Test
  void setShowAndRemoveABacklogCap() {
    CliRunner.Result set = cli.run("queues", "cap", "reports", "2");
    assertThat(set.exitCode()).as(set.err()).isZero();
    assertThat(set.out())
        .isEqualTo("queue reports backlog cap set to 2; enqueues over it are refused\n");
    assertThat(cli.run("queues", "cap", "reports").out())
        .isEqualTo("queue reports backlog cap: 2\n");
    JsonNode changed = cli.run("queues", "cap", "reports", "3", "--json").json();
    assertThat(changed.path("outcome").asText()).isEqualTo("changed");
    assertThat(changed.path("queue").path("backlog_cap").asInt()).isEqualTo(3);
    assertThat(cli.run("queues", "list").out()).contains("CAP").containsPattern("reports .* 3");

    cli.enqueue("q_job", "--queue", "reports");
    cli.enqueue("q_job", "--queue", "reports");
    cli.enqueue("q_job", "--queue", "reports");
    CliRunner.Result refused =
        cli.run("enqueue", "--kind", "q_job", "--args", "{}", "--queue", "reports");
    assertThat(refused.exitCode()).isNotZero();
    assertThat(refused.err())
        .contains(
            "cannot enqueue 1 job (queue=reports): the queue has 3 waiting jobs and a backlog cap"
                + " of 3");

    CliRunner.Result removed = cli.run("queues", "cap", "reports", "--remove");
    assertThat(removed.out()).isEqualTo("queue reports has no backlog cap now\n");
    JsonNode none = cli.run("queues", "cap", "reports", "--json").json();
    assertThat(none.path("outcome").asText()).isEqualTo("no_cap");
    assertThat(none.path("queue").path("backlog_cap").isNull()).isTrue();

    CliRunner.Result zero = cli.run("queues", "cap", "reports", "0");
    assertThat(zero.exitCode()).isEqualTo(BatonCli.USAGE);
    assertThat(zero.err()).contains("backlog cap of queue \"reports\"").contains("1..100000000");
    CliRunner.Result both = cli.run("queues", "cap", "reports", "5", "--remove");
    assertThat(both.exitCode()).isEqualTo(BatonCli.USAGE);
  }

  @Test
  void weighAKeyAndListTheWeights() {
    CliRunner.Result set = cli.run("queues", "weight", "tenants", "acme", "3");
    assertThat(set.exitCode()).as(set.err()).isZero();
    assertThat(set.out()).isEqualTo("queue tenants: key acme weighs 3\n");
    cli.run("queues", "weight", "tenants", "beta", "2");
    cli.run("queues", "weight", "tenants", "beta", "1");
    assertThat(cli.run("queues", "weight", "tenants").out()).isEqualTo("acme\t3\n");
    CliRunner.Result bad = cli.run("queues", "weight", "tenants", "acme", "0");
    assertThat(bad.exitCode()).isNotZero();
    assertThat(bad.err())
        .contains("weight of key \"acme\" of queue \"tenants\"")
        .contains("1..1000");
  }

  @Test
  void limitAndUnlimitAQueue() {
    CliRunner.Result limited = cli.run("queues", "limit", "payments", "5");
    assertThat(limited.exitCode()).as(limited.err()).isZero();
    assertThat(limited.out())
        .isEqualTo("queue payments limited to 5 running jobs across the cluster\n");
    JsonNode payments = null;
    for (JsonNode q : cli.run("queues", "list", "--json").json()) {
      if (q.path("name").asText().equals("payments")) {
        payments = q;
      }
    }
    assertThat(payments).isNotNull();
    assertThat(payments.path("concurrency_limit").asInt()).isEqualTo(5);
    assertThat(cli.run("queues", "list").out()).contains("LIMIT");
    cli.enqueue("q_job", "--queue", "payments");
    cli.enqueue("q_job", "--queue", "payments");
    CliRunner.Result stats = cli.run("stats");
    assertThat(stats.exitCode()).as(stats.err()).isZero();
    assertThat(stats.out()).contains("WAITING_FOR_LIMIT");
    JsonNode statsJson = null;
    for (JsonNode q : cli.run("stats", "--json").json()) {
      if (q.path("queue").asText().equals("payments")) {
        statsJson = q;
      }
    }
    assertThat(statsJson).isNotNull();
    assertThat(statsJson.path("concurrency_limit").asInt()).isEqualTo(5);
    assertThat(statsJson.path("waiting_for_limit").asInt()).isZero(); // 2 available, 5 free

    JsonNode unlimited = cli.run("queues", "unlimit", "payments", "--json").json();
    assertThat(unlimited.path("outcome").asText()).isEqualTo("unlimited");
    assertThat(unlimited.path("queue").path("concurrency_limit").isNull()).isTrue();
    assertThat(cli.run("queues", "unlimit", "payments").out())
        .isEqualTo("queue payments had no cluster-wide concurrency limit\n");

    CliRunner.Result perKey = cli.run("queues", "limit", "payments", "1", "--per-key", "customer");
    assertThat(perKey.exitCode()).as(perKey.err()).isZero();
    assertThat(perKey.out())
        .isEqualTo("queue payments limited to 1 running jobs per customer across the cluster\n");
    // 2 available jobs without the field: one key, room for 1
    assertThat(cli.run("stats").out())
        .containsPattern("payments +- +customer 1 each: 0 of 0 keys full +- +1");
    assertThat(cli.run("queues", "unlimit", "payments", "--per-key").out())
        .isEqualTo("queue payments has no concurrency limit per key now\n");

    CliRunner.Result rate = cli.run("queues", "rate", "mail", "50", "1s");
    assertThat(rate.exitCode()).as(rate.err()).isZero();
    assertThat(rate.out()).isEqualTo("queue mail limited to 50 starts per 1s\n");
    cli.enqueue("q_job", "--queue", "mail");
    CliRunner.Result limitedStats = cli.run("stats");
    assertThat(limitedStats.out())
        .as("per key and rate limits in stats")
        .containsPattern("mail +- +- +0/50 per 1s +0");
    JsonNode mailJson = null;
    for (JsonNode q : cli.run("stats", "--json").json()) {
      if (q.path("queue").asText().equals("mail")) {
        mailJson = q;
      }
    }
    assertThat(mailJson).isNotNull();
    assertThat(mailJson.path("rate_limit").asInt()).isEqualTo(50);
    assertThat(mailJson.path("rate_period_ms").asInt()).isEqualTo(1000);
    assertThat(mailJson.path("starts_in_period").asInt()).isZero();
    assertThat(mailJson.has("concurrency_limit")).isFalse();
    assertThat(cli.run("queues", "rate", "mail", "--remove").out())
        .isEqualTo("queue mail has no rate limit now\n");
    CliRunner.Result rateKeyed =
        cli.run("queues", "rate", "mail", "5", "1m", "--per-key", "customer");
    assertThat(rateKeyed.exitCode()).as(rateKeyed.err()).isZero();
    assertThat(rateKeyed.out())
        .isEqualTo("queue mail limited to 5 starts per 1m per key (args field customer)\n");
    assertThat(
            cli.db.queryLong(
                "SELECT count(*) FROM "
                    + cli.schema
                    + ".queue WHERE name = 'mail' AND rate_key_field = 'customer'"))
        .isEqualTo(1);
    assertThat(cli.run("queues", "rate", "mail", "--remove").out())
        .isEqualTo("queue mail has no rate limit now\n");
    CliRunner.Result badPeriod = cli.run("queues", "rate", "mail", "50", "soon");
    assertThat(badPeriod.exitCode()).isEqualTo(BatonCli.USAGE);
    assertThat(badPeriod.err()).contains("PERIOD").contains("soon");

    CliRunner.Result negative = cli.run("queues", "limit", "payments", "-1");
    assertThat(negative.exitCode()).isEqualTo(BatonCli.USAGE);
    assertThat(negative.err()).contains("0..1000000").contains("-1");
  }

  @Test
  void anInvalidQueueNameIsAUsageError() {
    CliRunner.Result r = cli.run("queues", "pause", "-bad name");
    assertThat(r.exitCode()).isEqualTo(BatonCli.USAGE);
    assertThat(r.errLines()).hasSize(1);
    CliRunner.Result missing = cli.run("queues", "pause");
    assertThat(missing.exitCode()).isEqualTo(BatonCli.USAGE);
    assertThat(missing.err()).contains("QUEUE");
  }

  @Test
  void nodesListsTheRegistryAndTheLeader() {
    CliRunner.Result none = cli.run("nodes");
    assertThat(none.exitCode()).as(none.err()).isZero();
    assertThat(none.out()).contains("no nodes registered").contains("leader: none elected");

    BatonConfig config =
        BatonConfig.builder()
            .schema(cli.schema)
            .nodeId("node-under-test")
            .queue("pings", 1)
            .leaderTtl(Duration.ofSeconds(30))
            .build();
    try (Baton baton =
        Baton.builder(cli.db.admin()).config(config).handler(Ping.class, (ctx, p) -> {}).build()) {
      baton.start();
      await().atMost(Duration.ofSeconds(30)).until(baton::isLeader);

      JsonNode doc = cli.run("nodes", "--json").json();
      assertThat(doc.path("nodes").findValuesAsText("id")).containsExactly("node-under-test");
      assertThat(doc.path("nodes").get(0).path("leader").asBoolean()).isTrue();
      assertThat(doc.path("nodes").get(0).path("queues").toString()).isEqualTo("[\"pings\"]");
      assertThat(doc.path("leader").path("node_id").asText()).isEqualTo("node-under-test");
      assertThat(doc.path("leader").path("expired").asBoolean()).isFalse();

      CliRunner.Result text = cli.run("nodes");
      assertThat(text.out())
          .contains("node-under-test")
          .contains("HEARTBEAT_AT")
          .contains("leader: node-under-test (term ");
    }
  }
}
