package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testing.Fixture;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * A capability costs nothing where it is not used: an enqueue without uniqueness (single, in a
 * transaction, bulk by statement and by {@code COPY}) prepares exactly the statements it prepared
 * before unique jobs existed. The statements are captured as the client prepares them and compared
 * by their SHA-256 with the texts of version 6 of the schema (migration 7 added uniqueness and left
 * them as they were).
 */
class EnqueueWithoutUniquenessRunsTheSameStatementsTest {

  record Plain(int n) implements JobArgs {}

  @Test
  void singleBulkAndCopyEnqueuesPrepareTheStatementsOfBefore() {
    try (Fixture f = new Fixture()) {
      List<String> prepared = new ArrayList<>();
      DataSource capturing = capturing(f.dataSource(), prepared);
      Baton baton =
          Baton.builder(capturing)
              .config(BatonConfig.builder().schema(f.schema()).allowUnknownKinds(true).build())
              .build();

      baton.enqueue(new Plain(1));
      baton.enqueue(new Plain(2), EnqueueOptions.builder().idempotencyKey("k").build());
      baton.enqueueMany(List.of(JobRequest.of(new Plain(3)), JobRequest.of(new Plain(4))));
      baton.enqueueMany(
          IntStream.range(0, 300).mapToObj(i -> JobRequest.of(new Plain(i))).toList());

      // The client's list of capped queues (docs/backlog-caps.md) is read at most once per 2 s,
      // not per enqueue: here, before the first one.
      assertThat(prepared.get(0)).contains("WHERE backlog_cap IS NOT NULL");
      prepared.remove(0);
      List<String> hashes =
          prepared.stream().map(sql -> sha256(sql.replace("\"" + f.schema() + "\"", "s"))).toList();
      assertThat(prepared)
          .noneMatch(sql -> sql.contains("unique"))
          .noneMatch(sql -> sql.contains(".enqueue("));
      assertThat(hashes).containsExactly(EXPECTED.toArray(String[]::new));
    }
  }

  // SHA-256 of each statement text as prepared, the schema name replaced by "s", as of schema
  // version 6: the single insert (twice: without and with an idempotency key that did not
  // conflict), the bulk insert by statement, and the id draw and the NOTIFY of the COPY path.
  private static final List<String> EXPECTED =
      List.of(
          "8c3fb870278e0986ea757d8ab7fdfeab75d51a21ddfdcb5cf315913c89a0138d",
          "8c3fb870278e0986ea757d8ab7fdfeab75d51a21ddfdcb5cf315913c89a0138d",
          "7930e0bb471add36173fae88a06ff7968d8e09fbde82b4d893e62c79b55d8612",
          "4cd9a9c8b56ea90ba2588a08db0654d7f56c3236ac15325a7f79d054873f354a",
          "6c34f762d99b13c89169511d012d5e5b3493708cf00b52814698287974459c7a");

  private static DataSource capturing(DataSource real, List<String> prepared) {
    return (DataSource)
        Proxy.newProxyInstance(
            DataSource.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              Object result = invoke(real, method, args);
              if (result instanceof Connection c) {
                return Proxy.newProxyInstance(
                    Connection.class.getClassLoader(),
                    new Class<?>[] {Connection.class},
                    (p, m, a) -> {
                      if (m.getName().equals("prepareStatement")) {
                        synchronized (prepared) {
                          prepared.add((String) a[0]);
                        }
                      }
                      return invoke(c, m, a);
                    });
              }
              return result;
            });
  }

  private static Object invoke(Object target, java.lang.reflect.Method m, Object[] args)
      throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  private static String sha256(String s) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }
}
