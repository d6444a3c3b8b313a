package dev.baton.testing;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
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

  /** One statement's text and the plan PostgreSQL made for it with its binds. */
  public record Plan(String sql, String plan) {}

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
              plans.add(new Plan(sql, explain(c, sql, binds)));
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
