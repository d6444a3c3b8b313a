package dev.baton.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.Counters;
import dev.baton.EnqueueOptions;
import dev.baton.InvalidConfigException;
import dev.baton.JobArgs;
import dev.baton.JobHandler;
import dev.baton.PeriodicJob;
import dev.baton.QueueConfig;
import dev.baton.SchemaNotMigratedException;
import dev.baton.migrate.Migrator;
import dev.baton.spi.HandlerProvider;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code baton worker}: runs a node whose handlers come from {@link HandlerProvider}s found with
 * {@link ServiceLoader} on the class path and in the jars given with {@code --handlers}, until
 * SIGTERM or SIGINT, then stops gracefully and exits 0.
 */
@Command(
    name = "worker",
    mixinStandardHelpOptions = true,
    description = {
      "Run a worker node: its job handlers come from the handler providers (implementations of "
          + WorkerCommand.SPI
          + ") listed in META-INF/services/"
          + WorkerCommand.SPI
          + " of the jars given with --handlers, or of the class path. It works the queues given"
          + " with --queue until SIGTERM or SIGINT (Ctrl-C), then stops gracefully (running jobs"
          + " finish, or are handed back after the stop timeout) and exits 0.",
      "",
      "Prints one line when it runs: its node id, kinds, queues and the metrics URL (with --json,"
          + " one JSON object per line: \"started\", then \"stopped\").",
      "Example: baton worker --handlers mail-handlers.jar --queue mail:8 --metrics-port 9464"
    })
final class WorkerCommand extends BaseCommand implements Callable<Integer> {

  /** The service interface the worker loads. */
  static final String SPI = "dev.baton.spi.HandlerProvider";

  // How long the shutdown hook waits for the graceful stop beyond the client's stop timeout
  // (producers, the completer's last writes, deregistering) before it gives up and exits 1.
  private static final Duration STOP_MARGIN = Duration.ofSeconds(60);

  @Option(
      names = "--queue",
      paramLabel = "NAME[:CONCURRENCY]",
      description =
          "A queue to work, and how many of its jobs run at once on this node (default "
              + QueueConfig.DEFAULT_CONCURRENCY
              + "); repeatable (default: the queue "
              + EnqueueOptions.DEFAULT_QUEUE
              + ")")
  List<String> queues = new ArrayList<>();

  @Option(
      names = "--handlers",
      split = ",",
      paramLabel = "JAR",
      description =
          "Jars (or class directories) holding handler providers and their handlers,"
              + " comma-separated or repeated; added to the class path")
  List<String> handlerPaths = new ArrayList<>();

  @Option(
      names = "--node-id",
      paramLabel = "ID",
      description = "This node's id (default: <host>-<slot>, stable across restarts)")
  String nodeId;

  @Option(
      names = "--metrics-port",
      paramLabel = "PORT",
      description =
          "Serve Prometheus metrics on http://HOST:PORT/metrics; 0 picks a free port (printed)."
              + " Default: no metrics")
  Integer metricsPort;

  @Option(
      names = "--metrics-host",
      paramLabel = "HOST",
      defaultValue = "127.0.0.1",
      description = "Address the metrics endpoint binds (default: ${DEFAULT-VALUE})")
  String metricsHost;

  @Option(
      names = "--stop-timeout-s",
      paramLabel = "SECONDS",
      description =
          "How long a stop (SIGTERM, Ctrl-C) waits for running handlers; those still running then"
              + " are interrupted and their jobs handed back to their queue, attempt given back"
              + " (default 10; 0..3600)")
  Integer stopTimeoutSeconds;

  @Option(
      names = "--migrate",
      description = "Apply pending migrations to the schema first (needs the schema's owner)")
  boolean migrate;

  @Override
  public Integer call() {
    // Everything that needs no database is checked first.
    BatonConfig config = config(parseQueues());
    root().dataSource(); // checks the URL before anything starts
    if (metricsPort != null) {
      checkMetricsAddress();
    }
    URLClassLoader jars = handlerLoader();
    ClassLoader loader = jars != null ? jars : WorkerCommand.class.getClassLoader();
    Thread self = Thread.currentThread();
    ClassLoader previous = self.getContextClassLoader();
    // Threads the client starts inherit this loader, for libraries of the handlers that use it.
    self.setContextClassLoader(loader);
    try {
      List<HandlerProvider> providers = loadProviders(loader);
      // A pool, as an application would run the client (docs/operations/pooling.md, "Formula"):
      // every queue's slots and two claim streams, plus the client's own connections (notifier,
      // heartbeater, completer, cluster, maintenance) and one spare.
      int slots = config.queues().values().stream().mapToInt(QueueConfig::concurrency).sum();
      int own = 2 * config.queues().size() + 6;
      try (HikariDataSource pool = root().pool(Math.min(slots + own, 100))) {
        return run(pool, config, providers);
      }
    } finally {
      self.setContextClassLoader(previous);
      if (jars != null) {
        try {
          jars.close();
        } catch (IOException e) {
          // the process is ending; nothing to act on
        }
      }
    }
  }

  /** The client's config: schema, node id, queues; validated (a bad value is a usage error). */
  private BatonConfig config(Map<String, Integer> queueSpecs) {
    BatonConfig.Builder cb = BatonConfig.builder().schema(root().schema());
    if (nodeId != null) {
      cb.nodeId(nodeId);
    }
    if (stopTimeoutSeconds != null) {
      if (stopTimeoutSeconds < 0 || stopTimeoutSeconds > 3_600) {
        throw new UsageException(
            "--stop-timeout-s must be 0..3600 seconds, got " + stopTimeoutSeconds);
      }
      cb.stopTimeout(Duration.ofSeconds(stopTimeoutSeconds));
    }
    queueSpecs.forEach(
        (name, concurrency) -> {
          if (concurrency == null) {
            cb.queue(name);
          } else {
            cb.queue(name, concurrency);
          }
        });
    return cb.build();
  }

  private int run(DataSource dataSource, BatonConfig config, List<HandlerProvider> providers) {
    Baton.Builder builder = Baton.builder(dataSource).config(config);
    Map<String, String> kinds = new LinkedHashMap<>(); // kind -> provider
    List<String> periodic = new ArrayList<>();
    for (HandlerProvider p : providers) {
      ProviderRegistrar r = new ProviderRegistrar(builder, dataSource, config, p);
      try {
        p.register(r);
      } catch (InvalidConfigException e) {
        throw new UsageException(
            "handler provider " + p.getClass().getName() + " cannot register: " + e.getMessage());
      } catch (RuntimeException e) {
        throw new CommandFailedException(
            "handler provider " + p.getClass().getName() + " failed to register: " + e);
      } finally {
        r.closed = true;
      }
      r.kinds.forEach(k -> kinds.put(k, p.getClass().getName()));
      periodic.addAll(r.periodic);
    }
    if (kinds.isEmpty() && periodic.isEmpty()) {
      throw new UsageException(
          "the handler providers "
              + providers.stream().map(p -> p.getClass().getName()).toList()
              + " registered no handler and no periodic job");
    }
    List<Integer> migrated = null;
    if (migrate) {
      migrated = new Migrator(dataSource, config.schema()).up();
    }
    Baton baton = builder.build();
    Shutdown shutdown = new Shutdown(config.stopTimeout().plus(STOP_MARGIN));
    shutdown.install();
    int exit = BatonCli.FAILED;
    MetricsEndpoint endpoint = null;
    try {
      try {
        baton.start();
      } catch (SchemaNotMigratedException e) {
        throw new CommandFailedException(
            e.getMessage()
                + "; run 'baton migrate up' first, or pass --migrate, or the right --schema");
      }
      if (metricsPort != null) {
        try {
          endpoint = MetricsEndpoint.start(baton, metricsHost, metricsPort);
        } catch (java.net.BindException e) {
          if (String.valueOf(e.getMessage()).contains("assign requested address")) {
            // The port is not the problem: no interface of this machine has that address.
            throw new UsageException(
                "--metrics-host "
                    + metricsHost
                    + " is not an address of this machine: "
                    + e.getMessage()
                    + "; pass one of its addresses, 127.0.0.1 (local scrapers only) or 0.0.0.0"
                    + " (every interface)");
          }
          throw new CommandFailedException(
              "cannot serve metrics on "
                  + metricsHost
                  + ":"
                  + metricsPort
                  + ": "
                  + e.getMessage()
                  + "; pass another --metrics-port, or 0 for a free one");
        } catch (IOException e) {
          throw new CommandFailedException(
              "cannot serve metrics on "
                  + metricsHost
                  + ":"
                  + metricsPort
                  + ": "
                  + e.getMessage()
                  + "; pass another --metrics-port, or 0 for a free one");
        }
      }
      printStarted(config, kinds, periodic, migrated, endpoint);
      shutdown.awaitRequest();
      if (endpoint != null) {
        endpoint.close();
      }
      baton.stop();
      printStopped(baton);
      exit = BatonCli.OK;
      return exit;
    } finally {
      if (endpoint != null) {
        endpoint.close();
      }
      baton.stop(); // no-op when stopped; a failed start or bind leaves no node registered
      shutdown.done(exit);
    }
  }

  /** The queue specs, in order: name to concurrency (null = the default). */
  private Map<String, Integer> parseQueues() {
    Map<String, Integer> out = new LinkedHashMap<>();
    if (queues.isEmpty()) {
      out.put(EnqueueOptions.DEFAULT_QUEUE, null);
      return out;
    }
    for (String spec : queues) {
      int colon = spec.indexOf(':');
      String name = colon < 0 ? spec : spec.substring(0, colon);
      Integer concurrency = null;
      if (colon >= 0) {
        String n = spec.substring(colon + 1);
        try {
          concurrency = Integer.valueOf(n);
        } catch (NumberFormatException e) {
          throw new UsageException(
              "--queue '"
                  + spec
                  + "': expected NAME or NAME:CONCURRENCY with a whole number 1..10000, e.g."
                  + " mail:8");
        }
      }
      if (out.containsKey(name)) {
        throw new UsageException("--queue '" + name + "' is given twice; give each queue once");
      }
      out.put(name, concurrency);
    }
    return out;
  }

  private void checkMetricsAddress() {
    if (metricsPort < 0 || metricsPort > 65_535) {
      throw new UsageException(
          "--metrics-port must be 0..65535 (0 picks a free port), got " + metricsPort);
    }
    if (new InetSocketAddress(metricsHost, 0).isUnresolved()) {
      throw new UsageException(
          "--metrics-host '"
              + metricsHost
              + "' cannot be resolved; give an address such as"
              + " 127.0.0.1 or 0.0.0.0");
    }
  }

  /** A loader over the --handlers jars, child of this command's loader; null when none given. */
  private URLClassLoader handlerLoader() {
    if (handlerPaths.isEmpty()) {
      return null;
    }
    List<URL> urls = new ArrayList<>();
    for (String given : handlerPaths) {
      if (given.isBlank()) {
        throw new UsageException("--handlers has an empty entry; give JAR[,JAR...]");
      }
      Path path = Path.of(given).toAbsolutePath().normalize();
      if (!Files.exists(path)) {
        throw new UsageException("--handlers: no such file: " + path);
      }
      if (Files.isRegularFile(path)) {
        try (JarFile jar = new JarFile(path.toFile())) {
          jar.size();
        } catch (IOException e) {
          throw new UsageException(
              "--handlers: " + path + " is not a readable jar (" + e.getMessage() + ")");
        }
      } else if (!Files.isDirectory(path)) {
        throw new UsageException("--handlers: " + path + " is neither a jar nor a directory");
      }
      try {
        urls.add(path.toUri().toURL());
      } catch (MalformedURLException e) {
        throw new UsageException("--handlers: cannot use " + path + ": " + e.getMessage());
      }
    }
    return new URLClassLoader(
        "baton-handlers", urls.toArray(new URL[0]), WorkerCommand.class.getClassLoader());
  }

  private List<HandlerProvider> loadProviders(ClassLoader loader) {
    List<HandlerProvider> out = new ArrayList<>();
    try {
      Iterator<HandlerProvider> it = ServiceLoader.load(HandlerProvider.class, loader).iterator();
      while (it.hasNext()) {
        out.add(it.next());
      }
    } catch (ServiceConfigurationError e) {
      throw new CommandFailedException(
          "cannot load a handler provider: "
              + e.getMessage()
              + (e.getCause() != null ? " (" + e.getCause() + ")" : "")
              + "; check META-INF/services/"
              + SPI
              + " and that the class is public with a public no-arg constructor");
    }
    if (out.isEmpty()) {
      throw new UsageException(
          "no handler provider found: no jar "
              + (handlerPaths.isEmpty()
                  ? "on the class path"
                  : "given with --handlers or on the class path")
              + " lists an implementation of "
              + SPI
              + " in META-INF/services/"
              + SPI
              + "; implement it, list the class there, and pass the jar with --handlers JAR");
    }
    return out;
  }

  private void printStarted(
      BatonConfig config,
      Map<String, String> kinds,
      List<String> periodic,
      List<Integer> migrated,
      MetricsEndpoint endpoint) {
    PrintWriter out = out();
    String url = endpoint == null ? null : endpoint.uri().toString();
    if (json()) {
      ObjectNode o = Output.object();
      o.put("event", "started");
      o.put("node_id", config.nodeId());
      o.put("schema", config.schema());
      ArrayNode qs = o.putArray("queues");
      for (QueueConfig q : config.queues().values()) {
        qs.addObject().put("name", q.name()).put("concurrency", q.concurrency());
      }
      kinds.keySet().forEach(o.putArray("kinds")::add);
      kinds.values().stream().distinct().forEach(o.putArray("providers")::add);
      periodic.forEach(o.putArray("periodic")::add);
      if (migrated != null) {
        migrated.forEach(o.putArray("migrated")::add);
      }
      o.put("metrics_url", url);
      printJsonLine(out, o);
      return;
    }
    if (migrated != null) {
      out.println(
          migrated.isEmpty()
              ? "schema " + config.schema() + " is up to date"
              : "migrated schema "
                  + config.schema()
                  + " to version "
                  + migrated.get(migrated.size() - 1));
    }
    String queuesText =
        config.queues().values().stream()
            .map(q -> q.name() + ":" + q.concurrency())
            .collect(Collectors.joining(", "));
    out.println(
        "baton worker "
            + config.nodeId()
            + " running kinds "
            + (kinds.isEmpty() ? "(none)" : String.join(", ", kinds.keySet()))
            + (periodic.isEmpty() ? "" : " and periodic jobs " + String.join(", ", periodic))
            + " on queues "
            + queuesText
            + " in schema "
            + config.schema()
            + "; metrics "
            + (url == null ? "off (--metrics-port to serve them)" : "at " + url)
            + "; stop with SIGTERM or Ctrl-C");
    out.flush();
  }

  private void printStopped(Baton baton) {
    Counters c = baton.counters();
    PrintWriter out = out();
    if (json()) {
      ObjectNode o = Output.object();
      o.put("event", "stopped");
      o.put("node_id", baton.nodeId());
      o.put("claimed", c.claimed());
      o.put("completed", c.completed());
      o.put("retried", c.retried());
      o.put("discarded", c.discarded());
      o.put("cancelled", c.cancelled());
      o.put("snoozed", c.snoozed());
      o.put("fenced", c.fenced());
      o.put("handed_back", c.handedBack());
      printJsonLine(out, o);
      return;
    }
    out.println(
        "baton worker "
            + baton.nodeId()
            + " stopped: claimed "
            + c.claimed()
            + ", completed "
            + c.completed()
            + ", retried "
            + c.retried()
            + ", discarded "
            + c.discarded()
            + ", cancelled "
            + c.cancelled()
            + ", handed back "
            + c.handedBack());
    out.flush();
  }

  private static void printJsonLine(PrintWriter out, ObjectNode o) {
    try {
      out.println(
          Output.MAPPER.writer().without(SerializationFeature.INDENT_OUTPUT).writeValueAsString(o));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON", e);
    }
    out.flush();
  }

  /**
   * Turns SIGTERM and SIGINT into a graceful stop. Both start the JVM's shutdown, which runs this
   * hook; it asks the command's thread to stop and waits for it. The JVM would then exit with 143
   * or 130 (128 + the signal), and the command's own exit would block behind the running hook, so
   * the hook ends the process itself, with the command's exit code: 0 after a graceful stop.
   */
  private static final class Shutdown {
    private final CountDownLatch requested = new CountDownLatch(1);
    private final CountDownLatch done = new CountDownLatch(1);
    private final Duration bound;
    private final Thread hook;
    private volatile int exit = BatonCli.FAILED;

    Shutdown(Duration bound) {
      this.bound = bound;
      this.hook = new Thread(this::onShutdown, "baton-worker-shutdown");
    }

    void install() {
      Runtime.getRuntime().addShutdownHook(hook);
    }

    private void onShutdown() {
      requested.countDown();
      boolean finished = false;
      try {
        finished = done.await(bound.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      System.out.flush();
      System.err.flush();
      Runtime.getRuntime().halt(finished ? exit : BatonCli.FAILED);
    }

    /** Waits until a signal (or an interrupt of this thread) asks to stop. */
    void awaitRequest() {
      try {
        requested.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt(); // Baton.stop() still runs to the end
      }
    }

    /** The command is done with {@code code}; the hook, if running, ends the process with it. */
    void done(int code) {
      exit = code;
      done.countDown();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // the hook runs and halts with the code
      }
    }
  }

  /** The registrar handed to one provider; it records what the provider registered. */
  private static final class ProviderRegistrar implements HandlerProvider.Registrar {
    private final Baton.Builder builder;
    private final DataSource dataSource;
    private final BatonConfig config;
    private final HandlerProvider provider;
    final List<String> kinds = new ArrayList<>();
    final List<String> periodic = new ArrayList<>();
    volatile boolean closed;

    ProviderRegistrar(
        Baton.Builder builder, DataSource dataSource, BatonConfig config, HandlerProvider p) {
      this.builder = builder;
      this.dataSource = dataSource;
      this.config = config;
      this.provider = p;
    }

    private void checkOpen() {
      if (closed) {
        throw new IllegalStateException(
            "the registrar of " + provider.getClass().getName() + " is used after register()");
      }
    }

    @Override
    public <A extends JobArgs> HandlerProvider.Registrar handler(
        Class<A> argsType, JobHandler<A> handler) {
      checkOpen();
      builder.handler(argsType, handler);
      kinds.add(JobArgs.kindOf(argsType));
      return this;
    }

    @Override
    public <A extends JobArgs> HandlerProvider.Registrar handler(
        Class<A> argsType, Duration timeout, JobHandler<A> handler) {
      checkOpen();
      builder.handler(argsType, timeout, handler);
      kinds.add(JobArgs.kindOf(argsType));
      return this;
    }

    @Override
    public HandlerProvider.Registrar periodic(PeriodicJob job) {
      checkOpen();
      builder.periodic(job);
      periodic.add(job.name());
      return this;
    }

    @Override
    public DataSource dataSource() {
      return dataSource;
    }

    @Override
    public BatonConfig config() {
      return config;
    }
  }
}
