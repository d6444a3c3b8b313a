package dev.baton.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.QueueConfig;
import dev.baton.QueueInfo;
import dev.baton.admin.BatonAdmin;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code baton queues list|pause Q|resume Q|cap Q [N|--remove]|limit Q N|unlimit Q|rate Q N
 * PERIOD}.
 */
@Command(
    name = "queues",
    mixinStandardHelpOptions = true,
    description =
        "List, pause and resume queues, set their backlog caps and limit them, cluster-wide.",
    subcommands = {
      QueuesCommand.ListQueues.class,
      QueuesCommand.Pause.class,
      QueuesCommand.Resume.class,
      QueuesCommand.Cap.class,
      QueuesCommand.Limit.class,
      QueuesCommand.Unlimit.class,
      QueuesCommand.Rate.class,
      QueuesCommand.Weight.class
    })
final class QueuesCommand extends BaseCommand implements Callable<Integer> {

  @Override
  public Integer call() {
    throw missingSubcommand();
  }

  static ObjectNode json(QueueInfo q) {
    ObjectNode o = Output.object();
    o.put("name", q.name());
    o.put("paused", q.paused());
    o.put("paused_at", q.pausedAt() == null ? null : q.pausedAt().toString());
    o.put("paused_by", q.pausedBy());
    o.put("backlog_cap", q.backlogCap());
    o.put("concurrency_limit", q.concurrencyLimit());
    return o;
  }

  static QueueInfo find(BatonAdmin admin, String queue) {
    return admin.queues().stream()
        .filter(q -> q.name().equals(queue))
        .findFirst()
        .orElse(new QueueInfo(queue, false, null, null));
  }

  /** {@code baton queues list}. */
  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "List the queues the cluster knows (a pause, live jobs or a node working it).")
  static final class ListQueues extends BaseCommand implements Callable<Integer> {
    @Override
    public Integer call() {
      List<QueueInfo> queues = root().admin().queues();
      if (json()) {
        ArrayNode a = Output.array();
        queues.forEach(q -> a.add(QueuesCommand.json(q)));
        Output.printJson(out(), a);
        return BatonCli.OK;
      }
      if (queues.isEmpty()) {
        out().println("no queues");
        return BatonCli.OK;
      }
      Output.Table t = new Output.Table("NAME", "PAUSED", "PAUSED_AT", "PAUSED_BY", "CAP", "LIMIT");
      for (QueueInfo q : queues) {
        t.row(
            q.name(),
            q.paused() ? "yes" : "no",
            Output.time(q.pausedAt()),
            q.pausedBy(),
            q.backlogCap() == null ? "-" : q.backlogCap(),
            q.concurrencyLimit() == null ? "-" : q.concurrencyLimit().toString());
      }
      t.print(out());
      return BatonCli.OK;
    }
  }

  /** {@code baton queues pause Q}. */
  @Command(
      name = "pause",
      mixinStandardHelpOptions = true,
      description = {
        "Pause a queue on every node: no node claims its jobs until it is resumed. Running jobs"
            + " finish; enqueueing goes on."
      })
  static final class Pause extends BaseCommand implements Callable<Integer> {
    @Parameters(paramLabel = "QUEUE", description = "The queue")
    String queue;

    @Override
    public Integer call() {
      BatonAdmin admin = root().admin();
      boolean already = find(admin, queue).paused();
      admin.pause(queue, Database.operatorId());
      if (json()) {
        ObjectNode o = Output.object();
        o.put("outcome", already ? "already_paused" : "paused");
        o.set("queue", QueuesCommand.json(find(admin, queue)));
        Output.printJson(out(), o);
      } else if (already) {
        out().println("queue " + queue + " is already paused");
      } else {
        out()
            .println(
                "queue "
                    + queue
                    + " paused; no node claims its jobs until 'baton queues resume "
                    + queue
                    + "'");
      }
      return BatonCli.OK;
    }
  }

  /** {@code baton queues resume Q}. */
  @Command(
      name = "resume",
      mixinStandardHelpOptions = true,
      description = "Resume a paused queue on every node, and wake its workers.")
  static final class Resume extends BaseCommand implements Callable<Integer> {
    @Parameters(paramLabel = "QUEUE", description = "The queue")
    String queue;

    @Override
    public Integer call() {
      BatonAdmin admin = root().admin();
      boolean resumed = admin.resume(queue, Database.operatorId());
      if (json()) {
        ObjectNode o = Output.object();
        o.put("outcome", resumed ? "resumed" : "not_paused");
        o.set("queue", QueuesCommand.json(find(admin, queue)));
        Output.printJson(out(), o);
      } else {
        out()
            .println(
                resumed ? "queue " + queue + " resumed" : "queue " + queue + " was not paused");
      }
      return BatonCli.OK;
    }
  }

  /** {@code baton queues cap Q [N|--remove]}. */
  @Command(
      name = "cap",
      mixinStandardHelpOptions = true,
      description = {
        "Show, set or remove a queue's backlog cap: the most jobs that may wait (available,"
            + " scheduled, retryable) in it. An enqueue that would go over it is refused and writes"
            + " nothing (docs/backlog-caps.md). Setting a cap on a queue that had none returns"
            + " once every client checks it (about 2 seconds).",
        "",
        "baton queues cap mail 1000   set the cap of queue mail to 1000 jobs",
        "baton queues cap mail --remove   remove it",
        "baton queues cap mail   show it"
      })
  static final class Cap extends BaseCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "QUEUE", description = "The queue")
    String queue;

    @Parameters(
        index = "1",
        arity = "0..1",
        paramLabel = "CAP",
        description = "The cap, 1..100000000 jobs; omitted: show the queue's cap")
    Integer cap;

    @Option(names = "--remove", description = "Remove the queue's cap")
    boolean remove;

    @Override
    public Integer call() {
      if (remove && cap != null) {
        throw new UsageException("give either CAP or --remove, not both (got " + cap + ")");
      }
      QueueConfig.requireValidName(queue);
      BatonAdmin admin = root().admin();
      String outcome;
      String text;
      if (remove) {
        boolean removed = admin.removeBacklogCap(queue, Database.operatorId());
        outcome = removed ? "removed" : "no_cap";
        text =
            removed
                ? "queue " + queue + " has no backlog cap now"
                : "queue " + queue + " had no backlog cap";
      } else if (cap != null) {
        BatonAdmin.requireValidBacklogCap(queue, cap);
        OptionalInt before = admin.setBacklogCap(queue, cap, Database.operatorId());
        outcome = before.isPresent() ? "changed" : "set";
        text =
            "queue "
                + queue
                + " backlog cap set to "
                + cap
                + (before.isPresent() ? " (was " + before.getAsInt() + ")" : "")
                + "; enqueues over it are refused";
      } else {
        Integer current = admin.backlogCaps().get(queue);
        outcome = current == null ? "no_cap" : "capped";
        text =
            current == null
                ? "queue " + queue + " has no backlog cap"
                : "queue " + queue + " backlog cap: " + current;
      }
      if (json()) {
        ObjectNode o = Output.object();
        o.put("outcome", outcome);
        o.set("queue", QueuesCommand.json(find(admin, queue)));
        Output.printJson(out(), o);
      } else {
        out().println(text);
      }
      return BatonCli.OK;
    }
  }

  /** {@code baton queues limit Q N}. */
  @Command(
      name = "limit",
      mixinStandardHelpOptions = true,
      description = {
        "Limit a queue's jobs running at once across the whole cluster, on every node without a"
            + " restart. Jobs over the limit wait (available, no attempt used); running jobs"
            + " finish."
      })
  static final class Limit extends BaseCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "QUEUE", description = "The queue")
    String queue;

    @Parameters(
        index = "1",
        paramLabel = "N",
        description =
            "Jobs of the queue running at once across the cluster, 0..1000000 (per key with"
                + " --per-key: 1..1000000)")
    int limit;

    @Option(
        names = "--per-key",
        paramLabel = "FIELD",
        description =
            "Limit each key instead of the whole queue: the key of a job is its args' field FIELD")
    String perKey;

    @Override
    public Integer call() {
      BatonAdmin admin = root().admin();
      if (perKey != null) {
        admin.limitConcurrencyPerKey(queue, perKey, limit, Database.operatorId());
      } else {
        admin.limitConcurrency(queue, limit, Database.operatorId());
      }
      String what = perKey == null ? "" : " per " + perKey;
      if (json()) {
        ObjectNode o = Output.object();
        o.put("outcome", "limited");
        o.put("per_key", perKey);
        o.set("queue", QueuesCommand.json(find(admin, queue)));
        Output.printJson(out(), o);
      } else {
        out()
            .println(
                "queue "
                    + queue
                    + " limited to "
                    + limit
                    + " running jobs"
                    + what
                    + " across the cluster");
      }
      return BatonCli.OK;
    }
  }

  /** {@code baton queues unlimit Q}. */
  @Command(
      name = "unlimit",
      mixinStandardHelpOptions = true,
      description =
          "Remove a queue's cluster-wide concurrency limit (or, with --per-key, its limit per"
              + " key), on every node.")
  static final class Unlimit extends BaseCommand implements Callable<Integer> {
    @Parameters(paramLabel = "QUEUE", description = "The queue")
    String queue;

    @Option(names = "--per-key", description = "Remove the limit per key instead")
    boolean perKey;

    @Override
    public Integer call() {
      BatonAdmin admin = root().admin();
      if (perKey) {
        admin.removeConcurrencyLimitPerKey(queue, Database.operatorId());
        if (json()) {
          ObjectNode o = Output.object();
          o.put("outcome", "unlimited_per_key");
          o.set("queue", QueuesCommand.json(find(admin, queue)));
          Output.printJson(out(), o);
        } else {
          out().println("queue " + queue + " has no concurrency limit per key now");
        }
        return BatonCli.OK;
      }
      boolean had = find(admin, queue).concurrencyLimit() != null;
      admin.removeConcurrencyLimit(queue, Database.operatorId());
      if (json()) {
        ObjectNode o = Output.object();
        o.put("outcome", had ? "unlimited" : "not_limited");
        o.set("queue", QueuesCommand.json(find(admin, queue)));
        Output.printJson(out(), o);
      } else {
        out()
            .println(
                had
                    ? "queue " + queue + " has no cluster-wide concurrency limit now"
                    : "queue " + queue + " had no cluster-wide concurrency limit");
      }
      return BatonCli.OK;
    }
  }

  /** {@code baton queues rate Q N PERIOD} and {@code baton queues rate Q --remove}. */
  @Command(
      name = "weight",
      mixinStandardHelpOptions = true,
      description = {
        "Show or set the weight of a key in a queue's fair share: where keys take turns (a queue"
            + " limited per key), a key of weight W takes up to W jobs a turn. Every key weighs 1"
            + " unless set; a weight of 1 removes the setting. Without KEY, list the weights set."
      })
  static final class Weight extends BaseCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "QUEUE", description = "The queue")
    String queue;

    @Parameters(
        index = "1",
        arity = "0..1",
        paramLabel = "KEY",
        description = "The key (the text of the args field the queue is limited by)")
    String key;

    @Parameters(
        index = "2",
        arity = "0..1",
        paramLabel = "W",
        description = "Jobs per turn, 1..1000")
    Integer weight;

    @Override
    public Integer call() {
      BatonAdmin admin = root().admin();
      if (key == null) {
        java.util.Map<String, Integer> weights = admin.keyWeights(queue);
        if (weights.isEmpty()) {
          out().println("queue " + queue + ": every key weighs 1");
        }
        weights.forEach((k, w) -> out().println(k + "\t" + w));
        return BatonCli.OK;
      }
      if (weight == null) {
        throw new UsageException("queues weight: give KEY and W, or QUEUE alone to list");
      }
      admin.weighKey(queue, key, weight, Database.operatorId());
      out().println("queue " + queue + ": key " + key + " weighs " + weight);
      return BatonCli.OK;
    }
  }

  @Command(
      name = "rate",
      mixinStandardHelpOptions = true,
      description = {
        "Limit how many jobs of a queue start across the cluster: at most N in any window of"
            + " PERIOD (a sliding window), on every node without a restart. Jobs over the rate"
            + " wait (available, no attempt used). With --per-key FIELD, at most N per key."
      })
  static final class Rate extends BaseCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "QUEUE", description = "The queue")
    String queue;

    @Parameters(index = "1", arity = "0..1", paramLabel = "N", description = "Starts per period")
    Integer limit;

    @Parameters(
        index = "2",
        arity = "0..1",
        paramLabel = "PERIOD",
        description = "The window, as an ISO-8601 duration (PT1S) or 500ms, 1s, 1m, 1h")
    String period;

    @Option(names = "--remove", description = "Remove the queue's rate limit (per key as well)")
    boolean remove;

    @Option(
        names = "--per-key",
        paramLabel = "FIELD",
        description =
            "The rate holds per key, the text of the args field FIELD (a job without it has the"
                + " key \"\"), instead of the queue as a whole")
    String perKey;

    @Override
    public Integer call() {
      BatonAdmin admin = root().admin();
      if (remove) {
        if (perKey != null) {
          throw new UsageException("queues rate: --remove takes no --per-key");
        }
        admin.removeRateLimit(queue, Database.operatorId());
        out().println("queue " + queue + " has no rate limit now");
        return BatonCli.OK;
      }
      if (limit == null || period == null) {
        throw new UsageException("queues rate: give N and PERIOD, or --remove");
      }
      if (perKey != null) {
        admin.limitRatePerKey(queue, perKey, limit, duration(period), Database.operatorId());
        out()
            .println(
                "queue "
                    + queue
                    + " limited to "
                    + limit
                    + " starts per "
                    + period
                    + " per key (args field "
                    + perKey
                    + ")");
        return BatonCli.OK;
      }
      admin.limitRate(queue, limit, duration(period), Database.operatorId());
      out().println("queue " + queue + " limited to " + limit + " starts per " + period);
      return BatonCli.OK;
    }

    private static java.time.Duration duration(String text) {
      try {
        if (text.startsWith("P") || text.startsWith("p")) {
          return java.time.Duration.parse(text);
        }
        java.util.regex.Matcher m =
            java.util.regex.Pattern.compile("(\\d+)(ms|s|m|h)").matcher(text);
        if (m.matches()) {
          long n = Long.parseLong(m.group(1));
          return switch (m.group(2)) {
            case "ms" -> java.time.Duration.ofMillis(n);
            case "s" -> java.time.Duration.ofSeconds(n);
            case "m" -> java.time.Duration.ofMinutes(n);
            default -> java.time.Duration.ofHours(n);
          };
        }
      } catch (java.time.format.DateTimeParseException | NumberFormatException e) {
        // falls through to the usage error
      }
      throw new UsageException(
          "queues rate: PERIOD must be an ISO-8601 duration (PT1S) or a number with ms, s, m or h;"
              + " got \""
              + text
              + "\"");
    }
  }
}
