package dev.baton.cli;

import dev.baton.JobArgs;
import dev.baton.spi.HandlerProvider;
import java.sql.Connection;
import java.sql.PreparedStatement;
import javax.sql.DataSource;

/**
 * The handler provider of {@link WorkerCliTest}: three kinds. {@code worker_ping} just returns;
 * {@code worker_note} inserts a row into {@code <schema>.worker_note} and completes the job in the
 * same transaction, on the registrar's pool; {@code worker_sleep} sleeps its {@code ms}, and stops
 * early when interrupted. Listed in {@code
 * worker-provider/META-INF/services/dev.baton.spi.HandlerProvider} of the test resources, which is
 * not a class path root: a test adds that directory to a child's class path, or packs it into a jar
 * for {@code --handlers}, so every other test sees no provider.
 */
public final class WorkerTestHandlers implements HandlerProvider {

  /** Args of {@code worker_ping}. */
  public record WorkerPing(int n) implements JobArgs {}

  /** Args of {@code worker_note}. */
  public record WorkerNote(String text) implements JobArgs {}

  /** Args of {@code worker_sleep}. */
  public record WorkerSleep(long ms) implements JobArgs {}

  /** The public no-arg constructor ServiceLoader needs. */
  public WorkerTestHandlers() {}

  @Override
  public void register(Registrar registrar) {
    DataSource dataSource = registrar.dataSource();
    String table = registrar.config().schema() + ".worker_note";
    String node = registrar.config().nodeId();
    registrar
        .handler(WorkerPing.class, (ctx, ping) -> {})
        .handler(WorkerSleep.class, (ctx, sleep) -> Thread.sleep(sleep.ms()))
        .handler(
            WorkerNote.class,
            (ctx, note) -> {
              try (Connection c = dataSource.getConnection()) {
                c.setAutoCommit(false);
                try (PreparedStatement ps =
                    c.prepareStatement(
                        "INSERT INTO " + table + " (job_id, text, node) VALUES (?, ?, ?)")) {
                  ps.setLong(1, ctx.jobId());
                  ps.setString(2, note.text());
                  ps.setString(3, node);
                  ps.executeUpdate();
                }
                ctx.completeIn(c);
                c.commit();
              }
            });
  }
}
