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

/** {@code baton queues list|pause Q|resume Q|cap Q [N|--remove]}. */
@Command(
    name = "queues",
    mixinStandardHelpOptions = true,
    description = "List, pause and resume queues, and set their backlog caps, cluster-wide.",
    subcommands = {
      QueuesCommand.ListQueues.class,
      QueuesCommand.Pause.class,
      QueuesCommand.Resume.class,
      QueuesCommand.Cap.class
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
      Output.Table t = new Output.Table("NAME", "PAUSED", "PAUSED_AT", "PAUSED_BY", "CAP");
      for (QueueInfo q : queues) {
        t.row(
            q.name(),
            q.paused() ? "yes" : "no",
            Output.time(q.pausedAt()),
            q.pausedBy(),
            q.backlogCap() == null ? "-" : q.backlogCap());
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
}
