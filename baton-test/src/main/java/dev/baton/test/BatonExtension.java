package dev.baton.test;

import javax.sql.DataSource;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * A JUnit 5 extension that gives each test class a fresh, migrated Baton schema on the test server
 * ({@link TestDatabase}: {@code BATON_TEST_DATABASE_URL}, else an embedded PostgreSQL), and drops
 * it after the class. Test methods, lifecycle methods and constructors take it as a parameter of
 * type {@link TestSchema}, or its {@link DataSource} directly:
 *
 * <pre>{@code
 * @ExtendWith(BatonExtension.class)
 * class CheckoutTest {
 *   @Test
 *   void placingAnOrderEnqueuesItsEmail(TestSchema schema) { ... }
 * }
 * }</pre>
 *
 * <p>Every test of the class shares the schema; tests that must not see each other's jobs enqueue
 * inside a transaction they roll back, and assert with {@link TestBaton}'s {@code Connection}
 * overloads. A {@code @Nested} class gets a schema of its own.
 */
public final class BatonExtension implements BeforeAllCallback, ParameterResolver {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(BatonExtension.class);

  /** Created by JUnit. */
  public BatonExtension() {}

  @Override
  public void beforeAll(ExtensionContext context) {
    schemaOf(context);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == TestSchema.class || type == DataSource.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    TestSchema schema = schemaOf(context);
    return parameter.getParameter().getType() == TestSchema.class ? schema : schema.dataSource();
  }

  /** The schema of the test class {@code context} belongs to, made on first use. */
  private static TestSchema schemaOf(ExtensionContext context) {
    ExtensionContext classContext = context;
    while (classContext.getTestMethod().isPresent() && classContext.getParent().isPresent()) {
      classContext = classContext.getParent().get();
    }
    return classContext
        .getStore(NAMESPACE)
        .getOrComputeIfAbsent(
            classContext.getUniqueId(), id -> new DroppedAfterClass(), DroppedAfterClass.class)
        .schema;
  }

  /**
   * A schema in the class's store: JUnit closes it when the class is done. JUnit 5.13 and later
   * (and 6) close a stored {@link AutoCloseable} and warn about a value that is only a {@code
   * CloseableResource}; JUnit 5.12 and earlier (Spring Boot 3.5's) close only a {@code
   * CloseableResource}. Being both, it is closed once by either, without the warning.
   */
  @SuppressWarnings("deprecation") // CloseableResource: for JUnit before 5.13
  private static final class DroppedAfterClass
      implements ExtensionContext.Store.CloseableResource, AutoCloseable {
    final TestSchema schema = TestDatabase.get().newSchema();

    @Override
    public void close() {
      TestDatabase.get().drop(schema);
    }
  }
}
