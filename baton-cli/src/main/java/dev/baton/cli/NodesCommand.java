package dev.baton.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.LeaderInfo;
import dev.baton.NodeInfo;
import dev.baton.admin.BatonAdmin;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code baton nodes}: the node registry and the current leader. */
@Command(
    name = "nodes",
    mixinStandardHelpOptions = true,
    description = {
      "List the nodes in the registry and the maintenance leader. A leader whose lease has run out"
          + " (by this machine's clock) is marked expired."
    })
final class NodesCommand extends BaseCommand implements Callable<Integer> {

  @Override
  public Integer call() {
    BatonAdmin admin = root().admin();
    List<NodeInfo> nodes = admin.nodes();
    Optional<LeaderInfo> leader = admin.leader();
    String leaderId =
        leader
            .filter(l -> l.expiresAt().isAfter(Instant.now()))
            .map(LeaderInfo::nodeId)
            .orElse(null);
    if (json()) {
      ObjectNode o = Output.object();
      ArrayNode a = o.putArray("nodes");
      for (NodeInfo n : nodes) {
        ObjectNode no = a.addObject();
        no.put("id", n.id());
        no.put("host", n.host());
        no.put("pid", n.pid());
        n.queues().forEach(no.putArray("queues")::add);
        no.put("version", n.version());
        no.put("started_at", n.startedAt() == null ? null : n.startedAt().toString());
        no.put("heartbeat_at", n.heartbeatAt() == null ? null : n.heartbeatAt().toString());
        no.put("leader", n.id().equals(leaderId));
      }
      if (leader.isPresent()) {
        LeaderInfo l = leader.get();
        ObjectNode lo = o.putObject("leader");
        lo.put("node_id", l.nodeId());
        lo.put("term", l.term());
        lo.put("elected_at", l.electedAt().toString());
        lo.put("expires_at", l.expiresAt().toString());
        lo.put("expired", leaderId == null);
      } else {
        o.putNull("leader");
      }
      Output.printJson(out(), o);
      return BatonCli.OK;
    }
    if (nodes.isEmpty()) {
      out().println("no nodes registered");
    } else {
      Output.Table t =
          new Output.Table(
              "ID", "HOST", "PID", "QUEUES", "VERSION", "STARTED_AT", "HEARTBEAT_AT", "LEADER");
      for (NodeInfo n : nodes) {
        t.row(
            n.id(),
            n.host(),
            n.pid(),
            n.queues().isEmpty() ? "-" : String.join(",", n.queues()),
            n.version(),
            Output.time(n.startedAt()),
            Output.time(n.heartbeatAt()),
            n.id().equals(leaderId) ? "yes" : "");
      }
      t.print(out());
    }
    out()
        .println(
            leader
                .map(
                    l ->
                        "leader: "
                            + l.nodeId()
                            + " (term "
                            + l.term()
                            + ", lease expires at "
                            + l.expiresAt()
                            + (leaderId == null ? ", expired" : "")
                            + ")")
                .orElse("leader: none elected"));
    out().flush();
    return BatonCli.OK;
  }
}
