package dev.baton.cli.bench;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * {@code --trace-sql}: a {@link DataSource} wrapper that counts, per statement, how often Baton ran
 * it, how long the calls took (execute until the last row was read, as the calling thread saw it),
 * and how many rows came back, and the time connections were held. A diagnostic, not a figure: it
 * adds a little overhead to every call.
 *
 * <p>Statements are named by their first words (e.g. {@code WITH picked AS MATERIALIZED} is the
 * claim); the table at the end shows which statement the client's time goes to and how many jobs
 * each claim returned.
 */
final class SqlTrace {
  private static final class Stat {
    final LongAdder calls = new LongAdder();
    final LongAdder nanos = new LongAdder();
    final LongAdder rows = new LongAdder();
    // calls by rows returned: 0, 1, 2-3, 4-7, ..., 512+
    final LongAdder[] byRows = new LongAdder[11];

    Stat() {
      for (int i = 0; i < byRows.length; i++) {
        byRows[i] = new LongAdder();
      }
    }
  }

  /** Totals of one statement at one moment: calls, nanoseconds, rows. */
  record Totals(long calls, long nanos, long rows) {
    Totals minus(Totals o) {
      return new Totals(calls - o.calls, nanos - o.nanos, rows - o.rows);
    }

    String describe() {
      return calls == 0
          ? "0 calls"
          : String.format(
              Locale.ROOT,
              "%d calls, %.2f ms/call, %.1f rows/call",
              calls,
              nanos / 1e6 / calls,
              (double) rows / calls);
    }
  }

  /** Statement names as {@link #name} gives them, for {@link #totals}. */
  static final String CLAIM = "claim (WITH picked ... state = 'available' ... UPDATE running)";

  static final String COMPLETE = "complete many (UPDATE ... FROM unnest)";

  /** The totals of statement {@code name} so far. */
  Totals totals(String name) {
    Stat s = stats.get(name);
    return s == null ? new Totals(0, 0, 0) : new Totals(s.calls.sum(), s.nanos.sum(), s.rows.sum());
  }

  private final Map<String, Stat> stats = new ConcurrentHashMap<>();
  private final LongAdder borrows = new LongAdder();
  private final LongAdder heldNanos = new LongAdder();
  private final LongAdder borrowNanos = new LongAdder();

  /** {@code ds}, with every connection it hands out traced. */
  DataSource wrap(DataSource ds) {
    return (DataSource)
        Proxy.newProxyInstance(
            SqlTrace.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, m, args) -> {
              if (m.getName().equals("getConnection")) {
                long t = System.nanoTime();
                Connection c = (Connection) invoke(m, ds, args);
                long got = System.nanoTime();
                borrowNanos.add(got - t);
                borrows.increment();
                return connection(c, got);
              }
              if (m.getName().equals("getParentLogger")) {
                return Logger.getGlobal();
              }
              return invoke(m, ds, args);
            });
  }

  private Connection connection(Connection c, long borrowedAt) {
    InvocationHandler h =
        (proxy, m, args) -> {
          switch (m.getName()) {
            case "prepareStatement" -> {
              PreparedStatement ps = (PreparedStatement) invoke(m, c, args);
              return statement(PreparedStatement.class, ps, name((String) args[0]));
            }
            case "createStatement" -> {
              Statement st = (Statement) invoke(m, c, args);
              return statement(Statement.class, st, null);
            }
            case "close" -> {
              heldNanos.add(System.nanoTime() - borrowedAt);
              return invoke(m, c, args);
            }
            default -> {
              return invoke(m, c, args);
            }
          }
        };
    return (Connection)
        Proxy.newProxyInstance(
            SqlTrace.class.getClassLoader(), new Class<?>[] {Connection.class}, h);
  }

  private <S extends Statement> S statement(Class<S> type, S st, String preparedName) {
    InvocationHandler h =
        (proxy, m, args) -> {
          String n = m.getName();
          if (n.startsWith("execute")) {
            String name =
                preparedName != null
                    ? preparedName
                    : args != null && args.length > 0 && args[0] instanceof String s
                        ? name(s)
                        : "?";
            long t = System.nanoTime();
            Object r = invoke(m, st, args);
            if (r instanceof ResultSet rs) {
              return resultSet(rs, name, t);
            }
            record(name, System.nanoTime() - t, r instanceof Integer i ? i : 0);
            return r;
          }
          return invoke(m, st, args);
        };
    return type.cast(
        Proxy.newProxyInstance(SqlTrace.class.getClassLoader(), new Class<?>[] {type}, h));
  }

  private ResultSet resultSet(ResultSet rs, String name, long startedAt) {
    long[] rows = {0};
    boolean[] done = {false};
    InvocationHandler h =
        (proxy, m, args) -> {
          Object r = invoke(m, rs, args);
          if (m.getName().equals("next")) {
            if ((Boolean) r) {
              rows[0]++;
            } else if (!done[0]) {
              done[0] = true;
              record(name, System.nanoTime() - startedAt, rows[0]);
            }
          } else if (m.getName().equals("close") && !done[0]) {
            done[0] = true;
            record(name, System.nanoTime() - startedAt, rows[0]);
          }
          return r;
        };
    return (ResultSet)
        Proxy.newProxyInstance(
            SqlTrace.class.getClassLoader(), new Class<?>[] {ResultSet.class}, h);
  }

  private void record(String name, long nanos, long rows) {
    Stat s = stats.computeIfAbsent(name, k -> new Stat());
    s.calls.increment();
    s.nanos.add(nanos);
    s.rows.add(rows);
    int bucket = rows == 0 ? 0 : Math.min(10, 64 - Long.numberOfLeadingZeros(rows));
    s.byRows[bucket].increment();
  }

  private static Object invoke(Method m, Object target, Object[] args) throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  /** A statement's name: its first words, without the schema. */
  static String name(String sql) {
    String s = sql.strip().replaceAll("\\s+", " ").replaceAll("\"[^\"]*\"\\.", "");
    if (s.startsWith(
        "WITH picked AS MATERIALIZED ( SELECT id FROM job WHERE state = 'available'")) {
      return CLAIM;
    }
    if (s.startsWith("WITH picked AS MATERIALIZED ( SELECT id FROM job WHERE state = 'running'")) {
      return "rescue expired";
    }
    if (s.startsWith("WITH picked AS MATERIALIZED ( SELECT id FROM job WHERE state IN")) {
      return "schedule due";
    }
    if (s.startsWith("UPDATE job j SET state = 'completed'")) {
      return COMPLETE;
    }
    if (s.startsWith("WITH upd AS ( UPDATE job j SET state = f.state")) {
      return "finish many (non-plain)";
    }
    if (s.startsWith("UPDATE job j SET lease_expires_at")) {
      return "heartbeat";
    }
    if (s.startsWith("WITH p AS (SELECT ?::timestamptz")) {
      return "enqueue";
    }
    if (s.startsWith("WITH p AS MATERIALIZED")) {
      return "enqueue many";
    }
    return s.length() > 50 ? s.substring(0, 50) + "..." : s;
  }

  /** The table: per statement calls, total and mean time, rows per call; connection use. */
  List<String> table(double seconds) {
    java.io.StringWriter sw = new java.io.StringWriter();
    print(new PrintWriter(sw), seconds);
    return List.of(sw.toString().split("\n"));
  }

  private void print(PrintWriter out, double seconds) {
    List<Map.Entry<String, Stat>> rows = new ArrayList<>(stats.entrySet());
    rows.sort((a, b) -> Long.compare(b.getValue().nanos.sum(), a.getValue().nanos.sum()));
    out.printf(
        Locale.ROOT,
        "%-62s %8s %10s %9s %9s %8s%n",
        "statement (traced on the client's pool)",
        "calls",
        "total ms",
        "mean ms",
        "rows/call",
        "calls/s");
    for (Map.Entry<String, Stat> e : rows) {
      Stat s = e.getValue();
      long calls = s.calls.sum();
      out.printf(
          Locale.ROOT,
          "%-62s %8d %10.1f %9.3f %9.1f %8.1f%n",
          e.getKey(),
          calls,
          s.nanos.sum() / 1e6,
          calls == 0 ? 0 : s.nanos.sum() / 1e6 / calls,
          calls == 0 ? 0 : (double) s.rows.sum() / calls,
          calls / seconds);
    }
    for (Map.Entry<String, Stat> e : rows) {
      Stat s = e.getValue();
      if (s.rows.sum() == 0 || s.calls.sum() < 10) {
        continue;
      }
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < s.byRows.length; i++) {
        long c = s.byRows[i].sum();
        if (c > 0) {
          int lo = i == 0 ? 0 : 1 << (i - 1);
          int hi = i == 0 ? 0 : (1 << i) - 1;
          sb.append(' ')
              .append(i == 10 ? lo + "+" : lo == hi ? String.valueOf(lo) : lo + "-" + hi)
              .append(':')
              .append(c);
        }
      }
      out.printf(Locale.ROOT, "calls by rows returned, %s:%s%n", e.getKey(), sb);
    }
    long b = borrows.sum();
    out.printf(
        Locale.ROOT,
        "connections borrowed %d times, waiting %.1f ms in total, held %.1f ms in total%n",
        b,
        borrowNanos.sum() / 1e6,
        heldNanos.sum() / 1e6);
    out.flush();
  }

  /** Forgets everything counted so far (after a warm-up). */
  void reset() {
    stats.clear();
    borrows.reset();
    heldNanos.reset();
    borrowNanos.reset();
  }
}
