package dev.baton.testing;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;

/**
 * A data source that plans what it runs: before a prepared statement executes, the same text with
 * the same binds goes through {@code EXPLAIN} on the same connection (planned, not executed), and
 * the plan is kept beside the SQL. The statement then runs as it would have. Tests use it to see
 * which indexes the real code paths read, with their real binds.
 */
public final class PlanRecorder {

  /**
   * One statement's text, the plan PostgreSQL made for it with its binds (a custom plan, as for a
   * statement's first executions), and its generic plan (as a prepared statement may use after five
   * executions; PostgreSQL 16 and later, else null).
   */
  public record Plan(String sql, String plan, String genericPlan) {}

  private final DataSource target;
  private final List<Plan> plans = new CopyOnWriteArrayList<>();

  public PlanRecorder(DataSource target) {
    this.target = target;
  }

  /** The recording data source. */
  public DataSource dataSource() {
    return proxy(
        DataSource.class,
        (self, m, args) -> {
          Object r = call(target, m, args);
          return r instanceof Connection c ? connection(c) : r;
        });
  }

  /** Plans recorded so far, in order. */
  public List<Plan> plans() {
    return List.copyOf(plans);
  }

  /** Forgets the plans recorded so far. */
  public void clear() {
    plans.clear();
  }

  private Connection connection(Connection c) {
    return proxy(
        Connection.class,
        (self, m, args) -> {
          Object r = call(c, m, args);
          if (m.getName().equals("prepareStatement")
              && args.length == 1
              && r instanceof PreparedStatement ps) {
            return statement(c, (String) args[0], ps);
          }
          return r;
        });
  }

  private PreparedStatement statement(Connection c, String sql, PreparedStatement ps) {
    List<Object[]> binds = new ArrayList<>();
    return proxy(
        PreparedStatement.class,
        (self, m, args) -> {
          String name = m.getName();
          if (name.startsWith("set") && args != null && args.length >= 2) {
            binds.add(new Object[] {m, args});
          } else if (name.equals("executeQuery")
              || name.equals("executeUpdate")
              || name.equals("execute")) {
            if (args == null || args.length == 0) {
              plans.add(new Plan(sql, explain(c, sql, binds), explainGeneric(c, sql)));
            }
          }
          return call(ps, m, args);
        });
  }

  private static String explain(Connection c, String sql, List<Object[]> binds)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("EXPLAIN " + sql)) {
      for (Object[] b : binds) {
        call(ps, (Method) b[0], (Object[]) b[1]);
      }
      StringBuilder plan = new StringBuilder();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          plan.append(rs.getString(1)).append('\n');
        }
      }
      return plan.toString();
    } catch (SQLException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("cannot replay the binds of: " + sql, e);
    }
  }

  private static String explainGeneric(Connection c, String sql) throws SQLException {
    if (c.getMetaData().getDatabaseMajorVersion() < 16) {
      return null;
    }
    // EXPLAIN (GENERIC_PLAN) takes $n placeholders without values only where no bind message
    // follows, as in PL/pgSQL's EXECUTE of a text.
    try (Statement st = c.createStatement()) {
      st.execute(
          "CREATE OR REPLACE FUNCTION pg_temp.generic_plan(q text) RETURNS SETOF text"
              + " LANGUAGE plpgsql AS $f$ BEGIN"
              + " RETURN QUERY EXECUTE 'EXPLAIN (GENERIC_PLAN) ' || q; END $f$");
    }
    try (PreparedStatement ps = c.prepareStatement("SELECT pg_temp.generic_plan(?)")) {
      ps.setString(1, numbered(sql));
      StringBuilder plan = new StringBuilder();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          plan.append(rs.getString(1)).append('\n');
        }
      }
      return plan.toString();
    }
  }

  /** {@code sql} with each {@code ?} outside quotes as $1, $2, ... */
  static String numbered(String sql) {
    StringBuilder out = new StringBuilder(sql.length() + 16);
    int n = 0;
    char quote = 0;
    for (int i = 0; i < sql.length(); i++) {
      char ch = sql.charAt(i);
      if (quote != 0) {
        if (ch == quote) {
          quote = 0;
        }
        out.append(ch);
      } else if (ch == '\'' || ch == '"') {
        quote = ch;
        out.append(ch);
      } else if (ch == '?') {
        out.append('$').append(++n);
      } else {
        out.append(ch);
      }
    }
    return out.toString();
  }

  private static Object call(Object target, Method m, Object[] args) throws SQLException {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof SQLException s) {
        throw s;
      }
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }

  @SuppressWarnings("unchecked")
  private static <T> T proxy(Class<T> type, InvocationHandler h) {
    return (T)
        Proxy.newProxyInstance(PlanRecorder.class.getClassLoader(), new Class<?>[] {type}, h);
  }
}
