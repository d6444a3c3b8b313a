package dev.baton.cli.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The outcome of a demo run: its figures as one JSON object (what {@code --json} prints) and the
 * invariants it checked. The text report is drawn from the same object.
 */
public final class DemoReport {

  /** One checked invariant. */
  public record Invariant(String name, boolean held, String detail) {}

  private final ObjectNode json = JsonNodeFactory.instance.objectNode();
  private final List<Invariant> invariants = new ArrayList<>();

  DemoReport() {}

  /** The figures; {@link #finish()} adds the invariants and the verdict. */
  public ObjectNode json() {
    return json;
  }

  /** Records an invariant. */
  void check(String name, boolean held, String detail) {
    invariants.add(new Invariant(name, held, detail));
  }

  /** The invariants, in the order checked. */
  public List<Invariant> invariants() {
    return List.copyOf(invariants);
  }

  /** Whether every invariant held. */
  public boolean ok() {
    return invariants.stream().allMatch(Invariant::held);
  }

  /** The first invariant that broke, or null. */
  public Invariant firstBroken() {
    return invariants.stream().filter(i -> !i.held()).findFirst().orElse(null);
  }

  /** Puts the invariants and the verdict into the JSON object. */
  DemoReport finish() {
    ArrayNode a = json.putArray("invariants");
    for (Invariant i : invariants) {
      ObjectNode o = a.addObject();
      o.put("name", i.name());
      o.put("held", i.held());
      o.put("detail", i.detail());
    }
    json.put("ok", ok());
    Invariant broken = firstBroken();
    json.put("broken", broken == null ? null : broken.name());
    return this;
  }

  /** Prints the text report. */
  public void printText(PrintWriter out) {
    JsonNode s = json.path("settings");
    String title =
        "Baton demo: a shop, "
            + s.path("pods").asInt()
            + " worker pods, "
            + count(s.path("orders").asLong())
            + " orders";
    out.println();
    out.println(title);
    out.println("-".repeat(title.length()));
    JsonNode o = json.path("orders");
    JsonNode e = json.path("emails");
    JsonNode j = json.path("jobs");
    row(out, "orders committed", count(o.path("committed").asLong()), "");
    row(
        out,
        "orders rolled back",
        count(o.path("rolled_back").asLong()),
        "(their email jobs rolled back with them)");
    row(
        out,
        "emails delivered",
        count(e.path("delivered").asLong()),
        "(the mail provider's ledger: "
            + count(e.path("distinct_orders").asLong())
            + " orders, none twice)");
    row(
        out,
        "repeats suppressed",
        count(e.path("repeats_suppressed_by_key").asLong()),
        "(same Idempotency-Key: the provider answered with the first send)");
    long provider = e.path("stale_sends_refused_by_fence").asLong();
    long baton = j.path("stale_writes_refused_by_fence").asLong();
    row(
        out,
        "stale writes refused",
        count(provider + baton),
        "(by fence: " + provider + " sends at the provider, " + baton + " job writes in Baton)");
    row(
        out,
        "jobs rescued",
        count(j.path("rescued").asLong()),
        "(leases that ran out on a dead or frozen pod)");
    row(out, "retries", count(j.path("retries").asLong()), "(attempts after the first)");
    row(
        out,
        "throughput",
        String.format(Locale.ROOT, "%,.0f jobs/s", json.path("throughput_jobs_per_s").asDouble()),
        "(first order placed to last email job completed)");
    JsonNode p = json.path("pickup_latency_ms");
    row(
        out,
        "pickup latency",
        String.format(
            Locale.ROOT,
            "p50 %.1f ms, p99 %.1f ms",
            p.path("p50").asDouble(),
            p.path("p99").asDouble()),
        "(job committed to claimed, first attempts)");
    row(
        out,
        "elapsed",
        String.format(Locale.ROOT, "%.1f s", json.path("elapsed_s").asDouble()),
        "");
    for (JsonNode f : json.path("faults")) {
      row(
          out,
          "fault: " + f.path("fault").asText().replace('_', ' '),
          f.path("pod").asText("all pods"),
          f.path("detail").asText());
    }
    for (JsonNode pod : json.path("pods")) {
      row(
          out,
          pod.path("name").asText(),
          pod.path("fate").asText(),
          "completed "
              + pod.path("counters").path("completed").asLong()
              + ", fenced "
              + pod.path("counters").path("fenced").asLong()
              + (pod.hasNonNull("metrics_url")
                  ? ", metrics " + pod.path("metrics_url").asText()
                  : ""));
    }
    out.println();
    for (Invariant i : invariants) {
      out.println((i.held() ? "  ok      " : "  BROKEN  ") + i.name() + ": " + i.detail());
    }
    out.println();
    Invariant broken = firstBroken();
    out.println(
        broken == null
            ? "OK: every invariant held"
            : "FAILED: " + broken.name() + " (" + broken.detail() + ")");
    if (json.hasNonNull("kept")) {
      out.println(json.path("kept").asText());
    }
    out.flush();
  }

  private static void row(PrintWriter out, String label, String value, String note) {
    out.println(String.format(Locale.ROOT, "  %-22s %12s  %s", label, value, note).stripTrailing());
  }

  private static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }
}
