package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.testing.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code baton demo} end to end: three pod JVMs, the HTTP mail provider and every fault, on the
 * test database. Each invariant is checked from the JSON report and again from the database, by
 * queries of this test's own.
 */
class DemoCliTest {
  private final TestDatabase db = TestDatabase.get();

  private CliRunner.Result demo(String demoSchema, String... extra) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "demo",
                "--json",
                "--orders",
                "300",
                "--concurrency",
                "8",
                "--lease-ms",
                "2000",
                "--timeout-s",
                "120",
                "--demo-schema",
                demoSchema));
    args.addAll(List.of(extra));
    args.add("--database-url");
    args.add(db.jdbcUrl());
    return CliRunner.runRaw(java.util.Map.of(), args.toArray(new String[0]));
  }

  @Test
  void everyCommittedOrderIsEmailedOnceThroughAKillAFreezeAndBackendKills() {
    String schema = db.newSchemaName() + "_demo";
    CliRunner.Result r = demo(schema);
    assertThat(r.exitCode()).as("exit code; stderr:\n%s\nstdout:\n%s", r.err(), r.out()).isZero();
    JsonNode report = r.json();

    // From the report.
    assertThat(report.path("ok").asBoolean()).isTrue();
    for (JsonNode inv : report.path("invariants")) {
      assertThat(inv.path("held").asBoolean()).as(inv.toString()).isTrue();
    }
    long committed = report.path("orders").path("committed").asLong();
    long rolledBack = report.path("orders").path("rolled_back").asLong();
    assertThat(committed + rolledBack).isEqualTo(300);
    assertThat(rolledBack).as("about 5%% roll back").isBetween(1L, 45L);
    assertThat(report.path("emails").path("delivered").asLong()).isEqualTo(committed);
    assertThat(report.path("emails").path("repeats_suppressed_by_key").asLong()).isPositive();
    assertThat(report.path("emails").path("stale_sends_refused_by_fence").asLong()).isPositive();
    assertThat(report.path("jobs").path("rescued").asLong()).isPositive();
    assertThat(report.path("pickup_latency_ms").path("p50").asDouble()).isPositive();
    assertThat(report.path("throughput_jobs_per_s").asDouble()).isPositive();
    assertThat(report.path("faults").findValuesAsText("fault"))
        .containsExactlyInAnyOrder("kill", "freeze", "backend_kill");
    assertThat(report.path("pods").findValuesAsText("fate"))
        .containsExactlyInAnyOrder("killed", "stopped", "stopped", "stopped");
    long completedPerMetrics = 0;
    for (JsonNode pod : report.path("pods")) {
      assertThat(pod.path("metrics_url").asText()).startsWith("http://127.0.0.1:");
      if (pod.path("fate").asText().equals("stopped")) {
        // scraped from the pod's Prometheus endpoint just before it was stopped
        assertThat(pod.path("completed_per_metrics").asLong()).as(pod.toString()).isNotNegative();
        completedPerMetrics += pod.path("completed_per_metrics").asLong();
      }
    }
    assertThat(completedPerMetrics).as("completions counted by the pods' endpoints").isPositive();

    // Independently, from the database.
    String shop = schema + "_shop";
    assertThat(db.queryLong("SELECT count(*) FROM " + shop + ".shop_order")).isEqualTo(committed);
    assertThat(
            db.queryLong(
                "SELECT count(*) FROM "
                    + shop
                    + ".shop_order o WHERE (SELECT count(*) FROM "
                    + shop
                    + ".mail_ledger l WHERE l.order_id = o.id) <> 1"))
        .as("committed orders not emailed exactly once")
        .isZero();
    assertThat(
            db.queryLong(
                "SELECT count(*) FROM "
                    + shop
                    + ".mail_ledger l WHERE NOT EXISTS (SELECT 1 FROM "
                    + shop
                    + ".shop_order o WHERE o.id = l.order_id)"))
        .as("emails for orders that were never committed")
        .isZero();
    assertThat(db.queryLong("SELECT count(*) FROM " + schema + ".job")).isEqualTo(committed);
    assertThat(db.queryLong("SELECT count(*) FROM " + schema + ".job WHERE state <> 'completed'"))
        .isZero();
    assertThat(
            db.queryLong(
                "SELECT count(*) FROM "
                    + schema
                    + ".job j WHERE NOT EXISTS (SELECT 1 FROM "
                    + shop
                    + ".shop_order o WHERE o.id = (j.args->>'orderId')::bigint)"))
        .as("jobs of rolled-back orders")
        .isZero();
    assertThat(
            db.queryLong(
                "SELECT count(*) FROM "
                    + schema
                    + ".job WHERE (metadata->>'rescue_count')::int > 0 AND errors::text LIKE"
                    + " '%lease expired%'"))
        .as("jobs rescued after a lease ran out")
        .isPositive();
    // The completing fence of every job is at least the fence of its recorded email: a stale
    // holder never completed a job after a newer one had sent its email.
    assertThat(
            db.queryLong(
                "SELECT count(*) FROM "
                    + schema
                    + ".job j JOIN "
                    + shop
                    + ".mail_ledger l ON l.order_id = (j.args->>'orderId')::bigint"
                    + " WHERE j.fence < l.fence"))
        .isZero();
  }

  @Test
  void aProviderThatIgnoresKeysAndFencesFailsTheRunNamingTheInvariant() {
    String schema = db.newSchemaName() + "_demo";
    CliRunner.Result r = demo(schema, "--unsafe-provider");
    assertThat(r.exitCode()).as("stderr:\n%s", r.err()).isEqualTo(1);
    assertThat(r.json().path("ok").asBoolean()).isFalse();
    assertThat(r.json().path("broken").asText()).isEqualTo("no order emailed twice");
    assertThat(r.errLines())
        .last()
        .asString()
        .startsWith("baton: demo invariant broken: no order emailed twice");
    assertThat(
            db.queryLong(
                "SELECT count(*) FROM (SELECT order_id FROM "
                    + schema
                    + "_shop.mail_ledger GROUP BY order_id HAVING count(*) > 1) d"))
        .isPositive();
  }

  @Test
  void badSettingsAreUsageErrors() {
    CliRunner.Result pods = CliRunner.runRaw(java.util.Map.of(), "demo", "--pods", "2");
    assertThat(pods.exitCode()).isEqualTo(2);
    assertThat(pods.err()).contains("--pods must be 3..16").contains("a pod to kill");

    CliRunner.Result orders = CliRunner.runRaw(java.util.Map.of(), "demo", "--orders", "0");
    assertThat(orders.exitCode()).isEqualTo(2);
    assertThat(orders.err()).contains("--orders must be 1..1000000, got 0");

    CliRunner.Result schema =
        CliRunner.runRaw(java.util.Map.of(), "demo", "--demo-schema", "Shop-Demo");
    assertThat(schema.exitCode()).isEqualTo(2);
    assertThat(schema.err()).contains("--demo-schema must be a lower-case identifier");

    CliRunner.Result url =
        CliRunner.runRaw(java.util.Map.of(), "demo", "--database-url", "postgres://x/y");
    assertThat(url.exitCode()).isEqualTo(2);
    assertThat(url.err()).contains("must be a JDBC URL starting with jdbc:postgresql:");
  }
}
