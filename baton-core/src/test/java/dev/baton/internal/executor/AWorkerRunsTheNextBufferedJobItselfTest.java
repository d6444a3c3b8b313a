package dev.baton.internal.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.JobArgs;
import dev.baton.RetryPolicy;
import dev.baton.internal.completer.Completer;
import dev.baton.internal.db.AdminStore;
import dev.baton.internal.db.HolderStore;
import dev.baton.internal.db.SchemaName;
import dev.baton.internal.held.HeldJobs;
import dev.baton.internal.held.NodeCounters;
import dev.baton.internal.producer.Producer;
import dev.baton.testing.Fixture;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * When a handler returns and its producer passes the slot to a buffered job, the worker that ran
 * the handler runs that job itself: draining a buffer costs no hand-off to the thread pool (a queue
 * operation, a wake-up and a context switch) per job.
 */
class AWorkerRunsTheNextBufferedJobItselfTest {

  record Tick(int n) implements JobArgs {}

  @Test
  void bufferedJobsRunOnTheWorkerWhoseJobFreedTheSlot() throws Exception {
    int jobs = 51; // one for the slot, 50 for the buffer
    try (Fixture f = new Fixture()) {
      for (int i = 0; i < jobs; i++) {
        f.reader().enqueue(new Tick(i));
      }
      SchemaName schema = SchemaName.of(f.schema());
      HolderStore store = new HolderStore(schema);
      HeldJobs held = new HeldJobs();
      NodeCounters counters = new NodeCounters();
      AtomicInteger ran = new AtomicInteger();
      AtomicInteger submitted = new AtomicInteger();
      // One worker thread that counts the tasks it is given.
      ExecutorService workers =
          new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>()) {
            @Override
            public void execute(Runnable task) {
              submitted.incrementAndGet();
              super.execute(task);
            }
          };
      ScheduledExecutorService timer = Executors.newScheduledThreadPool(1);
      Completer completer =
          new Completer(
              f.dataSource(),
              store,
              held,
              counters,
              new Completer.Settings(100, 1_000, Duration.ofMillis(2)));
      String kind = JobArgs.kindOf(Tick.class);
      JobExecutor executor =
          new JobExecutor(
              new JobExecutor.Wiring(
                  f.dataSource(), store, new AdminStore(schema), held, counters, completer),
              new ObjectMapper(),
              Map.of(
                  kind,
                  new HandlerEntry<>(
                      kind,
                      Tick.class,
                      (ctx, a) -> {
                        if (ran.getAndIncrement() == 0) {
                          // The first job holds the slot until the other 50 wait in the buffer.
                          await()
                              .atMost(Duration.ofMinutes(1))
                              .until(
                                  () ->
                                      f.count("SELECT count(*) FROM %s.job WHERE state = 'running'")
                                          == jobs);
                        }
                      },
                      null)),
              workers,
              timer,
              new JobExecutor.Settings(
                  f.schema(),
                  "node",
                  Duration.ofMinutes(1),
                  Duration.ofSeconds(30),
                  RetryPolicy.exponential(),
                  dev.baton.BatonConfig.DEFAULT_MAX_ARGS_BYTES));
      // One slot and a fixed depth of 50: after the first claim fills the slot, the next buffers
      // 50.
      Producer producer =
          new Producer(
              f.dataSource(),
              store,
              executor,
              completer,
              new Producer.Settings(
                  "default",
                  1,
                  new Producer.Claim(
                      "node",
                      Duration.ofSeconds(30),
                      new String[0],
                      new Long[0],
                      Duration.ofMinutes(1)),
                  Duration.ofMillis(50),
                  100,
                  new Producer.Prefetch(50, Producer.Depth.FIXED)));
      completer.start();
      producer.start();
      try {
        await().atMost(Duration.ofMinutes(1)).until(() -> ran.get() == jobs);
      } finally {
        producer.stop(Duration.ofSeconds(5));
        completer.stop(Duration.ofSeconds(5));
        workers.shutdownNow();
        timer.shutdownNow();
      }
      // A hand-off per job submits a task for each of the 51; here the first job's worker runs the
      // 50 buffered ones itself, one after another.
      assertThat(submitted.get()).isEqualTo(1);
    }
  }
}
