package dev.baton.internal.node;

import dev.baton.BatonConfig;
import dev.baton.BatonException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** The threads a node's handlers run on, and the names of its own threads. Not public API. */
final class Workers {

  private Workers() {}

  /** Whether handlers run on virtual threads: as configured, else on Java 21 and later. */
  static boolean virtual(BatonConfig config) {
    Boolean v = config.virtualThreads();
    return v != null ? v : Runtime.version().feature() >= 21;
  }

  /**
   * The executor of a node's handlers: a thread per task on virtual threads, else a pool of {@code
   * threads} platform threads that end when idle.
   */
  static ExecutorService create(BatonConfig config, int threads) {
    if (virtual(config)) {
      try {
        // Java 21+: Thread.ofVirtual().name("baton-worker").factory(), looked up at run time
        // because the library targets Java 17. One name for all (a thread dump tells them apart
        // by id): a numbered name costs a string per job.
        MethodHandles.Lookup lookup = MethodHandles.publicLookup();
        Object builder =
            lookup
                .findStatic(
                    Thread.class,
                    "ofVirtual",
                    MethodType.methodType(Class.forName("java.lang.Thread$Builder$OfVirtual")))
                .invoke();
        Class<?> ofVirtual = Class.forName("java.lang.Thread$Builder$OfVirtual");
        builder =
            lookup
                .findVirtual(ofVirtual, "name", MethodType.methodType(ofVirtual, String.class))
                .invoke(builder, "baton-worker");
        ThreadFactory factory =
            (ThreadFactory)
                lookup
                    .findVirtual(
                        Class.forName("java.lang.Thread$Builder"),
                        "factory",
                        MethodType.methodType(ThreadFactory.class))
                    .invoke(builder);
        return (ExecutorService)
            lookup
                .findStatic(
                    java.util.concurrent.Executors.class,
                    "newThreadPerTaskExecutor",
                    MethodType.methodType(ExecutorService.class, ThreadFactory.class))
                .invoke(factory);
      } catch (Throwable e) {
        throw new BatonException(
            "cannot create virtual-thread executor on Java " + Runtime.version(), e);
      }
    }
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            threads,
            threads,
            60,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            named("baton-worker"));
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }

  /** Daemon threads named {@code prefix}, numbered when they are workers. */
  static ThreadFactory named(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t =
          new Thread(r, prefix.endsWith("worker") ? prefix + "-" + n.incrementAndGet() : prefix);
      t.setDaemon(true);
      return t;
    };
  }
}
