package dev.baton.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.SchemaNotMigratedException;
import dev.baton.admin.BatonAdmin;
import dev.baton.admin.StatsAdmin;
import dev.baton.admin.StatsAdmin.QueueStats;
import dev.baton.migrate.Migrator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/**
 * {@code baton stats}: per queue, the depth and age of the backlog, the jobs running, waiting and
 * discarded, the failure share and the throughput, cluster-wide. Reads the view {@code queue_stats}
 * (schema version 3) through {@link BatonAdmin#stats()}.
 */
@Command(
    name = "stats",
    mixinStandardHelpOptions = true,
    description = {
      "Show per queue, cluster-wide: jobs available (the depth) and how long the oldest has been"
          + " due, running, scheduled, retryable and discarded jobs, the share of attempts that"
          + " failed over the last 5 minutes and hour, and the completions per second over the"
          + " same windows. Reads the view <schema>.queue_stats (docs/metrics.md).",
      "",
      "A queue is listed while it has jobs waiting, running or discarded, or attempts that ended"
          + " in the last hour. Failure share = failed attempts / (failed attempts + completions);"
          + " throughput = completions in the window / its seconds; cap = the queue's backlog"
          + " cap (docs/backlog-caps.md). With --json: an array of objects, one per queue, the"
          + " figures unrounded, backlog_cap null when the queue has none."
    })
final class StatsCommand extends BaseCommand implements Callable<Integer> {

  @Override
  public Integer call() {
    BatonCli root = root();
    List<QueueStats> queues;
    Map<String, Integer> caps;
    try {
      // admin() refuses a schema newer than this library, as every other command does.
      queues = root.admin().stats();
      caps = root.admin().backlogCaps();
    } catch (SchemaNotMigratedException e) {
      throw notMigrated(root);
    }
    if (json()) {
      ArrayNode a = Output.array();
      java.util.Map<String, StatsAdmin.LimitsInUse> limits = new java.util.HashMap<>();
      root.admin().limitsInUse().forEach(l -> limits.put(l.queue(), l));
      for (QueueStats q : queues) {
        ObjectNode o = json(q).put("backlog_cap", caps.get(q.queue()));
        StatsAdmin.LimitsInUse l = limits.get(q.queue());
        if (l != null) { // only a limited queue has these
          json(o, l);
        }
        a.add(o);
      }
      Output.printJson(out(), a);
      return BatonCli.OK;
    }
    if (queues.isEmpty()) {
      out()
          .println(
              "no queues (no jobs waiting, running or discarded, none ended in the last hour)");
      out().flush();
      return BatonCli.OK;
    }
    Output.Table t =
        new Output.Table(
            "QUEUE",
            "AVAILABLE",
            "OLDEST",
            "RUNNING",
            "SCHEDULED",
            "RETRYABLE",
            "DISCARDED",
            "FAILED_5M",
            "FAILED_1H",
            "JOBS/S_5M",
            "JOBS/S_1H",
            "CAP");
    for (QueueStats q : queues) {
      Integer cap = caps.get(q.queue());
      t.row(
          q.queue(),
          q.available(),
          q.available() == 0 ? "-" : age(q.oldestAvailableAgeSeconds()),
          q.running(),
          q.scheduled(),
          q.retryable(),
          q.discarded(),
          share(q.failureShare5m(), q.failed5m() + q.completed5m()),
          share(q.failureShare1h(), q.failed1h() + q.completed1h()),
          rate(q.throughputPerSecond5m()),
          rate(q.throughputPerSecond1h()),
          cap == null ? "-" : cap);
    }
    t.print(out());
    out()
        .println(
            "OLDEST: since the oldest available job became due. FAILED: failed attempts / attempts"
                + " ended in the window. JOBS/S: completions per second in the window. CAP: the"
                + " backlog cap on available + scheduled + retryable jobs.");
    List<StatsAdmin.LimitsInUse> limits = root.admin().limitsInUse();
    if (!limits.isEmpty()) {
      out().println();
      Output.Table l =
          new Output.Table("QUEUE", "RUNNING/LIMIT", "PER_KEY", "STARTS/RATE", "WAITING_FOR_LIMIT");
      for (StatsAdmin.LimitsInUse q : limits) {
        l.row(
            q.queue(),
            q.concurrencyLimit() == null ? "-" : q.running() + "/" + q.concurrencyLimit(),
            q.keyLimit() == null
                ? "-"
                : q.keyField()
                    + " "
                    + q.keyLimit()
                    + " each: "
                    + q.keysAtLimit()
                    + " of "
                    + q.keysRunning()
                    + " keys full",
            q.rateLimit() == null
                ? "-"
                : q.startsInPeriod()
                    + "/"
                    + q.rateLimit()
                    + " per "
                    + period(q.ratePeriod())
                    + (q.rateKeyField() == null ? "" : " per " + q.rateKeyField() + " (busiest)"),
            q.waitingForLimits());
      }
      l.print(out());
      out()
          .println(
              "RUNNING/LIMIT: jobs running across the cluster / the most at once (baton queues"
                  + " limit). PER_KEY: the args field, the most running per key, keys at that"
                  + " limit of keys running (--per-key). STARTS/RATE: starts in the last period /"
                  + " the most per period (baton queues rate). WAITING_FOR_LIMIT: available jobs"
                  + " the limits do not let a claim take now.");
    }
    out().flush();
    return BatonCli.OK;
  }

  /** Adds a limited queue's limits and their use to its JSON; a limit it lacks is left out. */
  static void json(ObjectNode o, StatsAdmin.LimitsInUse l) {
    if (l.concurrencyLimit() != null) {
      o.put("concurrency_limit", l.concurrencyLimit());
    }
    if (l.keyLimit() != null) {
      o.put("key_field", l.keyField());
      o.put("key_limit", l.keyLimit());
      o.put("keys_running", l.keysRunning());
      o.put("keys_at_limit", l.keysAtLimit());
      ArrayNode busiest = o.putArray("busiest_keys");
      l.busiestKeys()
          .forEach(k -> busiest.addObject().put("key", k.key()).put("running", k.running()));
    }
    if (l.rateLimit() != null) {
      o.put("rate_limit", l.rateLimit());
      o.put("rate_period_ms", l.ratePeriod().toMillis());
      o.put("starts_in_period", l.startsInPeriod());
      if (l.rateKeyField() != null) {
        o.put("rate_key_field", l.rateKeyField());
      }
    }
    o.put("waiting_for_limit", l.waitingForLimits());
  }

  /** A rate limit's period in the unit {@code baton queues rate} takes: 250ms, 1s, 5m, 1h. */
  static String period(java.time.Duration d) {
    long ms = d.toMillis();
    if (ms % 3_600_000 == 0) {
      return ms / 3_600_000 + "h";
    }
    if (ms % 60_000 == 0) {
      return ms / 60_000 + "m";
    }
    if (ms % 1_000 == 0) {
      return ms / 1_000 + "s";
    }
    return ms + "ms";
  }

  /** One queue as JSON: the view's column names, plus discarded and the throughputs. */
  static ObjectNode json(QueueStats q) {
    ObjectNode o = Output.object();
    o.put("queue", q.queue());
    o.put("available", q.available());
    o.put("oldest_available_age_s", q.oldestAvailableAgeSeconds());
    o.put("running", q.running());
    o.put("scheduled", q.scheduled());
    o.put("retryable", q.retryable());
    o.put("discarded", q.discarded());
    o.put("completed_5m", q.completed5m());
    o.put("failed_5m", q.failed5m());
    o.put("failure_share_5m", q.failureShare5m());
    o.put("throughput_per_s_5m", q.throughputPerSecond5m());
    o.put("completed_1h", q.completed1h());
    o.put("failed_1h", q.failed1h());
    o.put("failure_share_1h", q.failureShare1h());
    o.put("throughput_per_s_1h", q.throughputPerSecond1h());
    return o;
  }

  private static CommandFailedException notMigrated(BatonCli root) {
    int version = new Migrator(root.dataSource(), root.schema()).currentVersion();
    String schema = "schema \"" + root.schema() + "\"";
    if (version == 0) {
      return new CommandFailedException(
          schema
              + " has no Baton tables; run 'baton migrate up' first, or pass the schema that has"
              + " them with --schema");
    }
    return new CommandFailedException(
        schema
            + " is at version "
            + version
            + " and baton stats reads the view queue_stats of version 3; run 'baton migrate up'"
            + " first");
  }

  /** Seconds as {@code 42.0s}, {@code 4m05s}, {@code 2h03m} or {@code 3d04h}. */
  static String age(double seconds) {
    if (seconds < 60) {
      return String.format(Locale.ROOT, "%.1fs", seconds);
    }
    long s = (long) seconds;
    if (s < 3_600) {
      return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
    }
    if (s < 86_400) {
      return String.format(Locale.ROOT, "%dh%02dm", s / 3_600, (s % 3_600) / 60);
    }
    return String.format(Locale.ROOT, "%dd%02dh", s / 86_400, (s % 86_400) / 3_600);
  }

  /** A ratio as a percentage with one decimal; {@code -} when no attempt ended. */
  static String share(double ratio, long ended) {
    return ended == 0 ? "-" : String.format(Locale.ROOT, "%.1f%%", ratio * 100);
  }

  /** Jobs per second: {@code 0}, four decimals below 0.01 (one job an hour shows), else two. */
  static String rate(double perSecond) {
    if (perSecond == 0) {
      return "0";
    }
    return String.format(Locale.ROOT, perSecond < 0.01 ? "%.4f" : "%.2f", perSecond);
  }
}
