package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.internal.db.AdminStore;
import dev.baton.internal.db.EnqueueStore;
import java.lang.reflect.Field;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every statement that reads a job row selects the columns {@code JobRow.read} takes, in its order:
 * each statement takes the list from the one definition beside {@code JobRow.read}, and this checks
 * that list, as the statements hold it, against the columns {@code read} reads by position.
 */
class JobRowStatementsTest {

  /** JobRow.read's columns, by position. */
  private static final String JOB_COLUMNS =
      "id, queue, kind, args::text AS args, state, priority, attempt, max_attempts,"
          + " (extract(epoch FROM scheduled_at) * 1000000)::bigint AS scheduled_at,"
          + " (extract(epoch FROM attempted_at) * 1000000)::bigint AS attempted_at, attempted_by,"
          + " (extract(epoch FROM lease_expires_at) * 1000000)::bigint AS lease_expires_at,"
          + " (extract(epoch FROM deadline_at) * 1000000)::bigint AS deadline_at,"
          + " fence, idempotency_key, errors::text AS errors, metadata::text AS metadata,"
          + " (extract(epoch FROM created_at) * 1000000)::bigint AS created_at,"
          + " (extract(epoch FROM finalized_at) * 1000000)::bigint AS finalized_at";

  record Statement(Class<?> store, String name) {
    @Override
    public String toString() {
      return store.getSimpleName() + "." + name;
    }
  }

  static List<Statement> jobRowStatements() {
    return List.of(
        new Statement(EnqueueStore.class, "ENQUEUE"),
        new Statement(EnqueueStore.class, "ENQUEUE_CLAIMING"),
        new Statement(EnqueueStore.class, "GET_BY_KEY"),
        new Statement(AdminStore.class, "GET"),
        new Statement(AdminStore.class, "LIST"),
        new Statement(AdminStore.class, "RETRY"),
        new Statement(AdminStore.class, "DELETE"));
  }

  @ParameterizedTest
  @MethodSource("jobRowStatements")
  void selectsJobRowsColumnsInItsOrder(Statement s) throws Exception {
    Field f = s.store().getDeclaredField(s.name());
    f.setAccessible(true);
    String sql = ((String) f.get(null)).replaceAll("\\s+", " ");
    assertThat(sql)
        .as(s.toString())
        .containsPattern("(SELECT|RETURNING) \\Q" + JOB_COLUMNS + "\\E\\b");
  }
}
