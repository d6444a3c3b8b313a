package dev.baton.spring.boot;

import dev.baton.SchemaTooNewException;
import dev.baton.Secrets;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a start-up that failed because a newer Baton migrated the schema past what this library
 * knows (typically an older build rolled out beside, or after, a newer one). Registered in {@code
 * META-INF/spring.factories}.
 */
public class BatonSchemaTooNewFailureAnalyzer
    extends AbstractFailureAnalyzer<SchemaTooNewException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, SchemaTooNewException cause) {
    return new FailureAnalysis(
        Secrets.mask(cause.getMessage()),
        "Deploy a build with Baton's schema version "
            + cause.found()
            + " or later, or, to go back to this build, revert schema \""
            + cause.schema()
            + "\" to version "
            + cause.known()
            + " first with the newer build's migrator (its './baton migrate down --yes', once per"
            + " version above "
            + cause.known()
            + "). baton.migrate=true never downgrades a schema.",
        cause);
  }
}
