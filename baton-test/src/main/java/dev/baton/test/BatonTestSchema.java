package dev.baton.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Gives a Spring test class ({@code @SpringBootTest}) a Baton schema of its own and a client that
 * is not started, so the test drains by hand with {@link TestBaton}:
 *
 * <pre>{@code
 * @SpringBootTest
 * @BatonTestSchema
 * class CheckoutTest {
 *   @Autowired Checkout checkout;
 *   @Autowired Baton baton;
 *   @Autowired DataSource dataSource;
 *
 *   @Test
 *   void placingAnOrderSendsItsEmail() {
 *     checkout.placeOrder(...);
 *     TestBaton jobs = TestBaton.of(baton, dataSource);
 *     assertEquals(Outcome.COMPLETED, jobs.drain("default").get(0).outcome());
 *   }
 * }
 * }</pre>
 *
 * <p>The test's application context gets these properties, above the application's own
 * configuration and below the test's ({@code @SpringBootTest(properties = ...)},
 * {@code @TestPropertySource}, {@code @DynamicPropertySource}), which can override each:
 *
 * <ul>
 *   <li>{@code baton.schema}: a new name, unique to the test class ({@code baton_test_<pid>_<n>});
 *   <li>{@code baton.migrate=true}: the starter creates and migrates that schema when it builds the
 *       {@code Baton} bean, on the context's own {@code DataSource};
 *   <li>{@code baton.enabled=false}: the workers are not started, so nothing but the test's {@code
 *       drain} runs jobs;
 *   <li>{@code spring.datasource.url}: the test server's ({@link TestDatabase}), unless {@link
 *       #database()} is {@link Database#APPLICATION}.
 * </ul>
 *
 * <p>The schema is dropped when the context closes (after the workers, if a test started them).
 * Each annotated class has a context of its own, which Spring caches until the end of the test run;
 * add {@code @DirtiesContext} to close it (and drop its schema) when the class is done. Needs
 * spring-test on the test class path, as every Spring Boot test has; has no effect without Spring's
 * TestContext framework.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
public @interface BatonTestSchema {

  /** The server the schema is made on; default {@link Database#TEST_DATABASE}. */
  Database database() default Database.TEST_DATABASE;

  /** Which server a {@link BatonTestSchema} is made on. */
  enum Database {
    /**
     * The test kit's server, {@code BATON_TEST_DATABASE_URL} or an embedded PostgreSQL: the context
     * gets {@code spring.datasource.url} of {@link TestDatabase#jdbcUrl()}.
     */
    TEST_DATABASE,
    /**
     * The server the context's {@code DataSource} connects to, as the test configures it: a
     * Testcontainers container's URL in a {@code @DynamicPropertySource}, a
     * {@code @ServiceConnection}, or the application's own settings. The kit sets no URL.
     */
    APPLICATION
  }
}
