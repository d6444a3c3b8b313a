package dev.baton.spring.boot;

import dev.baton.SchemaNotMigratedException;
import dev.baton.Secrets;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a start-up that failed because Baton's schema is missing or older than the library, with
 * the two ways to migrate it from a Spring Boot application. Registered in {@code
 * META-INF/spring.factories}.
 */
public class BatonSchemaFailureAnalyzer
    extends AbstractFailureAnalyzer<SchemaNotMigratedException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, SchemaNotMigratedException cause) {
    return new FailureAnalysis(
        Secrets.mask(cause.getMessage()),
        "Set baton.migrate=true to migrate schema \""
            + cause.schema()
            + "\" at start-up (the application's database user then needs DDL rights), or apply"
            + " the SQL of './baton migrate print' (Migrator.print()) with your migration tool.",
        cause);
  }
}
