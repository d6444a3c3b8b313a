package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.admin.JobAdmin;
import dev.baton.testing.Fixture;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Invariant 9, for text: args, metadata and idempotency keys that are not valid Unicode (an
 * unpaired surrogate, which the driver would store as {@code ?}) or hold NUL (which the server
 * refuses) are rejected before any SQL on every enqueue path, naming the field; nothing is written.
 * So are metadata that holds itself, nests too deeply or is too large.
 */
class TextThePostgresCannotStoreIsRejectedTest {

  record Note(String text) implements JobArgs {}

  private static Fixture f;
  private static Baton baton;
  private static JobAdmin admin;

  @BeforeAll
  static void schema() {
    f = new Fixture();
    baton = f.reader();
    admin = new JobAdmin(f.dataSource(), f.schema());
  }

  @AfterAll
  static void close() {
    f.close();
  }

  /** Runs {@code enqueue} on every path: single, transactional, bulk (statement, COPY), admin. */
  private static void everyPathRejects(Note args, EnqueueOptions options, String... expected) {
    List<ThrowingCallable> paths = new ArrayList<>();
    paths.add(() -> baton.enqueue(args, options));
    paths.add(
        () -> {
          try (Connection c = f.dataSource().getConnection()) {
            baton.enqueue(c, args, options);
          }
        });
    paths.add(() -> baton.enqueueMany(List.of(JobRequest.of(args, options))));
    // 300 requests without key or run time go by COPY; the bad one is last.
    List<JobRequest> many =
        new ArrayList<>(Collections.nCopies(299, JobRequest.of(new Note("ok"))));
    many.add(JobRequest.of(args, options));
    paths.add(() -> baton.enqueueMany(many));
    ObjectNode node = JsonNodeFactory.instance.objectNode().put("text", args.text());
    paths.add(() -> admin.enqueue("note", node, options));
    for (ThrowingCallable path : paths) {
      var thrown = assertThatThrownBy(path).isInstanceOf(InvalidJobException.class);
      for (String e : expected) {
        thrown.hasMessageContaining(e);
      }
    }
    assertThat(f.count("SELECT count(*) FROM %s.job")).isZero();
  }

  @Test
  void unpairedSurrogateInArgsIsRejectedOnEveryPath() {
    everyPathRejects(
        new Note("x\ud800y"),
        EnqueueOptions.defaults(),
        "kind=note",
        "args must be valid Unicode text without NUL characters",
        "got an unpaired surrogate \\uD800 at character 11 of its JSON");
    everyPathRejects(
        new Note("x\udfff"), EnqueueOptions.defaults(), "args", "unpaired surrogate \\uDFFF");
  }

  @Test
  void keysDifferingOnlyInAnUnpairedSurrogateAreRejectedNotMerged() {
    for (String key : List.of("k\udc00y", "k\udfffy", "k\ud800")) {
      assertThatThrownBy(
              () ->
                  baton.enqueue(
                      new Note("a"), EnqueueOptions.builder().idempotencyKey(key).build()))
          .isInstanceOf(InvalidJobException.class)
          .hasMessageContaining("idempotencyKey must be valid Unicode text without NUL characters")
          .hasMessageContaining("at character 2 of \"k\\u");
    }
    everyPathRejects(
        new Note("a"),
        EnqueueOptions.builder().idempotencyKey("k\udc00y").build(),
        "idempotencyKey",
        "got an unpaired surrogate \\uDC00 at character 2 of \"k\\uDC00y\"");
  }

  @Test
  void unpairedSurrogateOrNulInMetadataIsRejectedOnEveryPath() {
    everyPathRejects(
        new Note("a"),
        EnqueueOptions.builder().metadata("who", "\ud83d").build(),
        "metadata must be valid Unicode text",
        "\\uD83D");
    everyPathRejects(
        new Note("a"),
        EnqueueOptions.builder().metadata("who\u0000", "x").build(),
        "metadata must be valid Unicode text without NUL characters",
        "got a NUL character (U+0000)");
  }

  @Test
  void nulInArgsOrKeyIsRejectedOnEveryPath() {
    everyPathRejects(
        new Note("a\u0000b"),
        EnqueueOptions.defaults(),
        "args must be valid Unicode text without NUL characters",
        "got a NUL character (U+0000) at character 11 of its JSON");
    everyPathRejects(
        new Note("a"),
        EnqueueOptions.builder().idempotencyKey("k\u0000").build(),
        "idempotencyKey",
        "NUL character (U+0000) at character 2 of \"k\\u0000\"");
  }

  @Test
  void escapedSurrogatesFromAMapperThatEscapesAreCheckedAsWell() {
    ObjectMapper escaping = JsonMapper.builder().enable(JsonWriteFeature.ESCAPE_NON_ASCII).build();
    Baton b =
        Baton.builder(f.dataSource())
            .config(f.config().allowUnknownKinds(true).build())
            .objectMapper(escaping)
            .build();
    assertThatThrownBy(() -> b.enqueue(new Note("x\udc00")))
        .isInstanceOf(InvalidJobException.class)
        .hasMessageContaining("args must be valid Unicode")
        .hasMessageContaining("\\uDC00");
    // A text whose backslash is escaped is not an escape: stored as given.
    long id = b.enqueue(new Note("\\u0000 and \\ud800, \ud83d\ude00")).job().id();
    assertThat(f.job(id).args().get("text").asText())
        .isEqualTo("\\u0000 and \\ud800, \ud83d\ude00");
    f.execute("DELETE FROM %s.job");
  }

  @Test
  void validTextIncludingPairsIsStoredExactly() {
    String text = "caf\u00e9 \ud83d\ude00 \u4e2d\u6587 \"q\" \\ \t";
    EnqueueOptions options =
        EnqueueOptions.builder().idempotencyKey("k\ud83d\ude00").metadata("m", text).build();
    Job job = baton.enqueue(new Note(text), options).job();
    Job stored = f.job(job.id());
    assertThat(stored.args().get("text").asText()).isEqualTo(text);
    assertThat(stored.idempotencyKey()).isEqualTo("k\ud83d\ude00");
    assertThat(stored.metadata().get("m").asText()).isEqualTo(text);
    f.execute("DELETE FROM %s.job");
  }

  @Test
  void metadataThatHoldsItselfIsRejectedOnASmallStack() throws Exception {
    Map<String, Object> cycle = new HashMap<>();
    cycle.put("self", cycle);
    List<Object> list = new ArrayList<>();
    list.add(List.of(1, list));
    ObjectNode deep = JsonNodeFactory.instance.objectNode();
    ObjectNode at = deep;
    for (int i = 0; i < 100; i++) {
      at = at.putObject("d");
    }
    ObjectNode node = deep;
    // A small stack, as the issue found it: a raw StackOverflowError there before.
    CompletableFuture<List<Throwable>> errors = new CompletableFuture<>();
    Thread t =
        new Thread(
            null,
            () -> {
              List<Throwable> out = new ArrayList<>();
              for (Object value : List.of(cycle, list, node)) {
                try {
                  baton.enqueue(
                      new Note("a"), EnqueueOptions.builder().metadata("m", value).build());
                  out.add(null);
                } catch (Throwable e) {
                  out.add(e);
                }
              }
              errors.complete(out);
            },
            "small-stack",
            128 * 1024);
    t.start();
    List<Throwable> thrown = errors.get();
    assertThat(thrown.get(0))
        .isInstanceOf(InvalidJobException.class)
        .hasMessageContaining("metadata must be a tree of values, got a cycle: metadata.m.self");
    assertThat(thrown.get(1))
        .isInstanceOf(InvalidJobException.class)
        .hasMessageContaining("got a cycle: metadata.m[0][1]");
    assertThat(thrown.get(2))
        .isInstanceOf(InvalidJobException.class)
        .hasMessageContaining("metadata must be nested at most 64 levels deep, got deeper at");
    assertThat(f.count("SELECT count(*) FROM %s.job")).isZero();
  }

  @Test
  void metadataOverItsLimitIsRejectedNamingTheSetting() {
    assertThatThrownBy(() -> BatonConfig.builder().maxMetadataBytes(1))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("maxMetadataBytes")
        .hasMessageContaining("2..16777216");
    Baton small =
        Baton.builder(f.dataSource())
            .config(f.config().allowUnknownKinds(true).maxMetadataBytes(100).build())
            .build();
    EnqueueOptions big = EnqueueOptions.builder().metadata("m", "x".repeat(200)).build();
    assertThatThrownBy(() -> small.enqueue(new Note("a"), big))
        .isInstanceOf(InvalidJobException.class)
        .hasMessageContaining("metadata is 208 bytes of JSON, over the limit of 100")
        .hasMessageContaining("maxMetadataBytes");
    // The default, 64 KiB, on every path.
    EnqueueOptions huge =
        EnqueueOptions.builder()
            .metadata("m", "x".repeat(BatonConfig.DEFAULT_MAX_METADATA_BYTES))
            .build();
    everyPathRejects(
        new Note("a"), huge, "metadata is 65544 bytes of JSON, over the limit of 65536");
    assertThat(
            small
                .enqueue(new Note("a"), EnqueueOptions.builder().metadata("m", "x").build())
                .existing())
        .isFalse();
    f.execute("DELETE FROM %s.job");
  }
}
