package dev.baton.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.admin.BatonAdmin;
import dev.baton.dashboard.Dashboard;
import dev.baton.dashboard.DashboardAuth;
import dev.baton.dashboard.DashboardServer;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code baton dashboard}: serves the web dashboard of the schema until SIGTERM or SIGINT. Binds
 * 127.0.0.1 unless told otherwise; a token or basic credentials (options or environment) turn
 * authentication on, and a wider address without them is refused unless {@code --allow-anonymous}
 * says so. Checks the database and the schema before it listens, so that a wrong URL or an
 * unmigrated schema fails the command rather than every page.
 */
@Command(
    name = "dashboard",
    mixinStandardHelpOptions = true,
    description = {
      "Serve the web dashboard (queues, jobs, nodes, periodic jobs, and the actions retry, cancel,"
          + " delete, run now, pause and resume) and its JSON API under /api/, until SIGTERM or"
          + " SIGINT (Ctrl-C).",
      "",
      "Binds 127.0.0.1 by default. Beyond this machine, turn on authentication with --token (or"
          + " $"
          + DashboardCommand.ENV_TOKEN
          + ": requests carry 'Authorization: Bearer TOKEN') or --basic-auth USER:PASSWORD (or $"
          + DashboardCommand.ENV_BASIC
          + "), and put TLS in front; without either, an address beyond loopback is refused"
          + " unless --allow-anonymous is given.",
      "Behind a reverse proxy that passes on its own Host (nginx's default), give the address"
          + " users reach it at with --allowed-origin so that actions are not refused.",
      "Example: baton dashboard --port 7070 --read-only"
    })
final class DashboardCommand extends BaseCommand implements Callable<Integer> {

  static final String ENV_TOKEN = "BATON_DASHBOARD_TOKEN";
  static final String ENV_BASIC = "BATON_DASHBOARD_BASIC_AUTH";

  @Option(
      names = "--port",
      paramLabel = "PORT",
      defaultValue = "7070",
      description = "Port to listen on, 0..65535; 0 picks a free one (default: ${DEFAULT-VALUE})")
  int port;

  @Option(
      names = "--bind",
      paramLabel = "ADDRESS",
      defaultValue = "127.0.0.1",
      description = "Address to listen on (default: ${DEFAULT-VALUE}; 0.0.0.0 for every one)")
  String bind;

  @Option(
      names = "--token",
      paramLabel = "TOKEN",
      description =
          "Require 'Authorization: Bearer TOKEN' (16+ characters; default: $" + ENV_TOKEN + ")")
  String token;

  @Option(
      names = "--token-file",
      paramLabel = "FILE",
      description =
          "Require one of the named tokens in FILE, a NAME:TOKEN a line (# comments); actions are"
              + " recorded as taken by the token's name")
  java.nio.file.Path tokenFile;

  @Option(
      names = "--basic-auth",
      paramLabel = "USER:PASSWORD",
      description = "Require HTTP basic credentials (default: $" + ENV_BASIC + ")")
  String basicAuth;

  @Option(names = "--read-only", description = "Show everything, change nothing")
  boolean readOnly;

  @Option(
      names = "--allow-anonymous",
      description =
          "Serve without authentication on an address beyond loopback, where it is refused"
              + " otherwise: anyone who reaches it may act on jobs")
  boolean allowAnonymous;

  @Option(
      names = "--allowed-origin",
      paramLabel = "ORIGIN",
      description =
          "An origin besides the dashboard's own that may send actions, e.g."
              + " https://ops.example.com: the address of a reverse proxy in front; repeatable")
  List<String> allowedOrigins = new ArrayList<>();

  @Override
  public Integer call() throws InterruptedException {
    if (port < 0 || port > 65_535) {
      throw new UsageException("--port must be 0..65535, got " + port);
    }
    InetAddress address;
    try {
      address = InetAddress.getByName(bind);
    } catch (UnknownHostException e) {
      throw new UsageException("--bind must be an address of this machine, got '" + bind + "'");
    }
    DashboardAuth auth = auth();
    if (auth == null && !allowAnonymous && !address.isLoopbackAddress()) {
      throw new UsageException(
          "cannot serve the dashboard on "
              + bind
              + " without authentication: anyone who reaches it could act on jobs; give --token"
              + " or --basic-auth (or $"
              + ENV_TOKEN
              + " or $"
              + ENV_BASIC
              + "), or --allow-anonymous to serve it to anyone anyway");
    }
    BatonCli root = root();
    // Before listening: a database that cannot be reached or a schema at another version fails
    // the command here, once, instead of every page later.
    root.requireLatestSchema();
    HikariDataSource pool = root.pool(4);
    Dashboard.Builder builder =
        Dashboard.builder(new BatonAdmin(pool, root.schema()))
            .pausedBy(Database.operatorId())
            .auth(auth == null ? DashboardAuth.none() : auth);
    try {
      builder.allowedOrigins(allowedOrigins);
    } catch (IllegalArgumentException e) {
      pool.close();
      throw new UsageException(e.getMessage().replace("allowed origin", "--allowed-origin"));
    }
    if (readOnly) {
      builder.readOnly();
    }
    if (allowAnonymous) {
      builder.allowAnonymous();
    }
    DashboardServer server;
    try {
      server = builder.build().serve(new InetSocketAddress(address, port));
    } catch (UncheckedIOException e) {
      pool.close();
      throw new CommandFailedException(
          "cannot listen on " + bind + ":" + port + ": " + e.getCause().getMessage());
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  server.close();
                  pool.close();
                  stopped.countDown();
                  // A stop asked for by SIGTERM or SIGINT is a clean one: exit 0, not 128 + the
                  // signal, as the worker does.
                  Runtime.getRuntime().halt(BatonCli.OK);
                },
                "baton-dashboard-stop"));
    if (!address.isLoopbackAddress() && auth == null) {
      spec.commandLine()
          .getErr()
          .println(
              "warning: the dashboard listens on "
                  + bind
                  + " without authentication (--allow-anonymous); anyone who reaches it can act"
                  + " on jobs");
    }
    out()
        .println(
            "dashboard on "
                + server.uri()
                + " (schema "
                + root.schema()
                + (readOnly ? ", read-only" : "")
                + (auth == null ? "" : ", authentication on")
                + ")");
    out().flush();
    stopped.await();
    return BatonCli.OK;
  }

  // Null when none is given; the option wins over the environment.
  private DashboardAuth auth() {
    String t = token != null ? token : root().env().get(ENV_TOKEN);
    String b = basicAuth != null ? basicAuth : root().env().get(ENV_BASIC);
    if ((t != null ? 1 : 0) + (b != null ? 1 : 0) + (tokenFile != null ? 1 : 0) > 1) {
      throw new UsageException(
          "give one of a token, a token file or basic credentials, not several");
    }
    try {
      if (t != null) {
        return DashboardAuth.bearerToken(t);
      }
      if (tokenFile != null) {
        return DashboardAuth.bearerTokens(readTokens(tokenFile));
      }
      if (b != null) {
        int colon = b.indexOf(':');
        if (colon < 1) {
          throw new UsageException("--basic-auth must be USER:PASSWORD, got no ':' after a user");
        }
        return DashboardAuth.basic(b.substring(0, colon), b.substring(colon + 1));
      }
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
    return null;
  }

  /**
   * The tokens of a token file by name: a {@code NAME:TOKEN} a line; blank lines and lines starting
   * with {@code #} are skipped. An error names the file and the line, never a token.
   */
  static java.util.Map<String, String> readTokens(java.nio.file.Path file) {
    List<String> lines;
    try {
      lines = java.nio.file.Files.readAllLines(file, java.nio.charset.StandardCharsets.UTF_8);
    } catch (java.io.IOException e) {
      throw new UsageException("cannot read --token-file " + file + ": " + e.getMessage(), e);
    }
    java.util.Map<String, String> tokens = new java.util.LinkedHashMap<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int colon = line.indexOf(':');
      if (colon < 1) {
        throw new UsageException(
            "invalid --token-file "
                + file
                + " line "
                + (i + 1)
                + ": expected NAME:TOKEN, got no ':' after a name");
      }
      String name = line.substring(0, colon).strip();
      if (tokens.put(name, line.substring(colon + 1).strip()) != null) {
        throw new UsageException(
            "invalid --token-file "
                + file
                + " line "
                + (i + 1)
                + ": name "
                + name
                + " given twice");
      }
    }
    if (tokens.isEmpty()) {
      throw new UsageException(
          "invalid --token-file " + file + ": expected NAME:TOKEN lines, got none");
    }
    return tokens;
  }
}
