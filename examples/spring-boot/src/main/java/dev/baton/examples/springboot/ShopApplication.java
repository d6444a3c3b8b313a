package dev.baton.examples.springboot;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.util.Arrays;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The shop. Without {@code --spring.datasource.url} (or {@code SPRING_DATASOURCE_URL}) it starts an
 * embedded PostgreSQL for the run and stops it when the application stops.
 */
@SpringBootApplication
public class ShopApplication {

  /** Starts the shop; arguments are Spring Boot's. */
  public static void main(String[] args) throws IOException {
    if (hasDatabase(args)) {
      SpringApplication.run(ShopApplication.class, args);
      return;
    }
    System.err.println("No --spring.datasource.url: starting an embedded PostgreSQL for this run");
    EmbeddedPostgres postgres = EmbeddedPostgres.builder().setRegisterShutdownHook(false).start();
    String[] withDatabase = Arrays.copyOf(args, args.length + 1);
    withDatabase[args.length] =
        "--spring.datasource.url=" + postgres.getJdbcUrl("postgres", "postgres");
    SpringApplication app = new SpringApplication(ShopApplication.class);
    // One hook closes the context (Baton's graceful stop, the pool) and then the database, in that
    // order: two hooks would run at once and pull the database away from the stop.
    app.setRegisterShutdownHook(false);
    ConfigurableApplicationContext context;
    try {
      context = app.run(withDatabase);
    } catch (RuntimeException e) {
      close(postgres);
      throw e;
    }
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  context.close();
                  close(postgres);
                },
                "shop-shutdown"));
  }

  private static boolean hasDatabase(String[] args) {
    String env = System.getenv("SPRING_DATASOURCE_URL");
    return (env != null && !env.isBlank())
        || System.getProperty("spring.datasource.url") != null
        || Arrays.stream(args).anyMatch(a -> a.startsWith("--spring.datasource.url="));
  }

  private static void close(EmbeddedPostgres postgres) {
    try {
      postgres.close();
    } catch (IOException e) {
      System.err.println("could not stop the embedded PostgreSQL: " + e);
    }
  }
}
