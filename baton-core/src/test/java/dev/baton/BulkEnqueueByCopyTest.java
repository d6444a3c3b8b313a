package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.baton.internal.db.EnqueueStore;
import dev.baton.internal.db.SchemaName;
import dev.baton.testing.Fixture;
import dev.baton.testing.Notifications;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A bulk enqueue of {@link EnqueueStore#COPY_MIN_JOBS} or more jobs, none with an idempotency key
 * or a run time, is written with {@code COPY}: each request's args and options arrive exactly
 * (COPY's text format has escapes of its own), ids follow request order, the jobs exist only if the
 * caller's transaction commits, and workers are woken at commit as for any enqueue. A bulk holding
 * a key keeps the statement and its {@code ON CONFLICT}.
 */
class BulkEnqueueByCopyTest {

  record Text(String s, int n) implements JobArgs {}

  /** {@code n} small requests but one, {@code bad}, whose args exceed a 1,000-byte limit. */
  private static List<JobRequest> requestsWithOneTooLarge(int n, int bad) {
    List<JobRequest> requests = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      requests.add(JobRequest.of(new Text(i == bad ? "x".repeat(5_000) : "ok", i)));
    }
    return requests;
  }

  /** Strings that COPY's text format would mangle unescaped, and some that need no escape. */
  private static final List<String> AWKWARD =
      List.of(
          "back\\slash",
          "tab\there",
          "new\nline",
          "carriage\rreturn",
          "\\N",
          "\\.",
          "quote\"d",
          "é ü 中文 🎉",
          "",
          "comma,semicolon;pipe|",
          "trailing backslash\\");

  @Test
  void eachRequestArrivesExactlyWithIdsInRequestOrder() throws Exception {
    int n = EnqueueStore.COPY_MIN_JOBS * 3;
    try (Fixture f = new Fixture()) {
      List<JobRequest> requests = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        EnqueueOptions.Builder o = EnqueueOptions.builder().priority(i % 3).maxAttempts(1 + i % 7);
        if (i % 5 == 0) {
          o.metadata(Map.of("note", AWKWARD.get(i % AWKWARD.size()), "i", i));
        }
        requests.add(JobRequest.of(new Text(AWKWARD.get(i % AWKWARD.size()), i), o.build()));
      }
      EnqueueManyResult r = f.reader().enqueueMany(requests);

      long[] ids = r.jobIds();
      assertThat(r.insertedCount()).isEqualTo(n);
      for (int i = 1; i < n; i++) {
        assertThat(ids[i])
            .as("id of request %d after request %d's", i, i - 1)
            .isGreaterThan(ids[i - 1]);
      }
      for (int i = 0; i < n; i++) {
        Job job = f.job(ids[i]);
        assertThat(job.args().path("s").asText())
            .as("args.s of request %d", i)
            .isEqualTo(AWKWARD.get(i % AWKWARD.size()));
        assertThat(job.args().path("n").asInt()).isEqualTo(i);
        assertThat(job.priority()).isEqualTo(i % 3);
        assertThat(job.maxAttempts()).isEqualTo(1 + i % 7);
        assertThat(job.state()).isEqualTo(JobState.AVAILABLE);
        assertThat(job.attempt()).isZero();
        assertThat(job.queue()).isEqualTo("default");
        if (i % 5 == 0) {
          assertThat(job.metadata().path("note").asText())
              .isEqualTo(AWKWARD.get(i % AWKWARD.size()));
          assertThat(job.metadata().path("i").asInt()).isEqualTo(i);
        } else {
          assertThat(job.metadata().isEmpty()).as("metadata of request %d", i).isTrue();
        }
      }
      // Claim order within a priority is request order.
      List<Long> claimOrder = new ArrayList<>();
      try (Connection c = f.dataSource().getConnection();
          Statement st = c.createStatement();
          ResultSet rs =
              st.executeQuery(
                  "SELECT id FROM "
                      + f.schema()
                      + ".job WHERE state = 'available' ORDER BY priority, scheduled_at, id")) {
        while (rs.next()) {
          claimOrder.add(rs.getLong(1));
        }
      }
      List<Long> expected = new ArrayList<>(n);
      for (int p = 0; p < 3; p++) {
        for (int i = p; i < n; i += 3) {
          expected.add(ids[i]);
        }
      }
      assertThat(claimOrder).containsExactlyElementsOf(expected);
    }
  }

  @Test
  void idsMapToTheirRequestsWhenTheDrawnRangeHasGaps() {
    // When other sessions draw ids while a bulk draws its own, the bulk's ids are not one range,
    // and the draw returns each of them. An identity stepping by 3 makes every draw such a case.
    int n = EnqueueStore.COPY_MIN_JOBS;
    try (Fixture f = new Fixture()) {
      f.execute("ALTER TABLE %s.job ALTER COLUMN id SET INCREMENT BY 3");
      List<JobRequest> requests = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        requests.add(JobRequest.of(new Text("gap", i)));
      }
      long[] ids = f.reader().enqueueMany(requests).jobIds();
      for (int i = 0; i < n; i++) {
        if (i > 0) {
          assertThat(ids[i] - ids[i - 1]).as("step before request %d", i).isEqualTo(3);
        }
        assertThat(f.job(ids[i]).args().path("n").asInt()).as("job of request %d", i).isEqualTo(i);
      }
    }
  }

  @Test
  void jsonHoldingTabsAndLineBreaksFromAPrettyPrintingMapperArrivesExactly() {
    // The JSON a default mapper writes escapes tabs and line breaks inside strings, so only a
    // mapper that indents puts them into the text COPY carries: here tabs and CR LF.
    ObjectMapper pretty =
        new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .setDefaultPrettyPrinter(
                new DefaultPrettyPrinter().withObjectIndenter(new DefaultIndenter("\t", "\r\n")));
    int n = EnqueueStore.COPY_MIN_JOBS;
    try (Fixture f = new Fixture()) {
      Baton client =
          Baton.builder(f.dataSource())
              .config(f.config().allowUnknownKinds(true).build())
              .objectMapper(pretty)
              .build();
      List<JobRequest> requests = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        requests.add(
            JobRequest.of(
                new Text(AWKWARD.get(i % AWKWARD.size()), i),
                EnqueueOptions.builder()
                    .metadata(Map.of("i", i, "nested", Map.of("k", "v")))
                    .build()));
      }
      long[] ids = client.enqueueMany(requests).jobIds();
      for (int i = 0; i < n; i++) {
        Job job = f.job(ids[i]);
        assertThat(job.args().path("s").asText()).isEqualTo(AWKWARD.get(i % AWKWARD.size()));
        assertThat(job.args().path("n").asInt()).isEqualTo(i);
        assertThat(job.metadata().path("nested").path("k").asText()).isEqualTo("v");
      }
    }
  }

  @Test
  void jobsExistOnlyIfTheCallersTransactionCommitsAndWakeListenersAtCommit() throws Exception {
    int n = EnqueueStore.COPY_MIN_JOBS;
    try (Fixture f = new Fixture();
        Connection listener = f.dataSource().getConnection()) {
      String channel = SchemaName.of(f.schema()).insertChannel();
      try (Statement st = listener.createStatement()) {
        st.execute("LISTEN \"" + channel + "\"");
      }
      List<JobRequest> requests = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        requests.add(
            JobRequest.of(new Text("x", i), EnqueueOptions.builder().queue("mail").build()));
      }

      try (Connection c = f.dataSource().getConnection()) {
        c.setAutoCommit(false);
        assertThat(f.reader().enqueueMany(c, requests).insertedCount()).isEqualTo(n);
        c.rollback();
        c.setAutoCommit(true);
      }
      assertThat(f.count("SELECT count(*) FROM %s.job")).isZero();

      try (Connection c = f.dataSource().getConnection()) {
        c.setAutoCommit(false);
        f.reader().enqueueMany(c, requests);
        assertThat(Notifications.delivered(listener)).as("notified before commit").isEmpty();
        c.commit();
        c.setAutoCommit(true);
      }
      assertThat(f.count("SELECT count(*) FROM %s.job WHERE queue = 'mail'")).isEqualTo(n);
      assertThat(Notifications.until(listener, "mail")).contains("mail");
    }
  }

  @Test
  void aLargeBulkHoldingAnIdempotencyKeyStillMatchesTheExistingJob() {
    int n = EnqueueStore.COPY_MIN_JOBS * 2;
    try (Fixture f = new Fixture()) {
      EnqueueOptions keyed = EnqueueOptions.builder().idempotencyKey("order-7").build();
      long first = f.reader().enqueue(new Text("first", -1), keyed).job().id();
      List<JobRequest> requests = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        requests.add(
            i == 5 ? JobRequest.of(new Text("again", i), keyed) : JobRequest.of(new Text("y", i)));
      }
      EnqueueManyResult r = f.reader().enqueueMany(requests);
      assertThat(r.existing()[5]).isTrue();
      assertThat(r.jobIds()[5]).isEqualTo(first);
      assertThat(r.insertedCount()).isEqualTo(n - 1);
      assertThat(f.count("SELECT count(*) FROM %s.job")).isEqualTo(n);
    }
  }

  @Test
  @Timeout(60) // a connection left in COPY mode would hang the next call rather than fail it
  void aLargeBulkWithOneBadRequestWritesNothingAndLeavesThePoolUsable() {
    int n = EnqueueStore.COPY_MIN_JOBS * 2;
    try (Fixture f = new Fixture(1)) {
      Baton client =
          Baton.builder(f.dataSource())
              .config(f.config().allowUnknownKinds(true).maxArgsBytes(1_000).build())
              .build();
      List<JobRequest> requests = requestsWithOneTooLarge(n, n - 10);
      assertThatThrownBy(() -> client.enqueueMany(requests))
          .isInstanceOf(InvalidJobException.class)
          .hasMessageContaining("request " + (n - 10));
      assertThat(f.count("SELECT count(*) FROM %s.job")).isZero();

      requests.set(n - 10, JobRequest.of(new Text("ok", n - 10)));
      assertThat(client.enqueueMany(requests).insertedCount()).isEqualTo(n);
      assertThat(f.count("SELECT count(*) FROM %s.job")).isEqualTo(n);
    }
  }

  @Test
  @Timeout(60)
  void aLargeBulkWithABadRequestIsRejectedAsBadInputEvenWhenTheDatabaseIsDown() {
    // Every request is validated before anything is written, so a bad request is what is
    // reported, whatever the database's state. (A build that serialised a COPY-sized bulk on
    // another thread while drawing its ids failed this until it reported bad input first; that
    // build was not kept.)
    com.zaxxer.hikari.HikariConfig cfg = new com.zaxxer.hikari.HikariConfig();
    cfg.setJdbcUrl("jdbc:postgresql://127.0.0.1:1/nowhere");
    cfg.setConnectionTimeout(250);
    cfg.setInitializationFailTimeout(-1);
    try (com.zaxxer.hikari.HikariDataSource down = new com.zaxxer.hikari.HikariDataSource(cfg)) {
      Baton client =
          Baton.builder(down)
              .config(BatonConfig.builder().allowUnknownKinds(true).maxArgsBytes(1_000).build())
              .build();
      int n = EnqueueStore.COPY_MIN_JOBS * 2;
      List<JobRequest> requests = requestsWithOneTooLarge(n, n - 1);
      assertThatThrownBy(() -> client.enqueueMany(requests))
          .isInstanceOf(InvalidJobException.class)
          .hasMessageContaining("request " + (n - 1));
    }
  }
}
