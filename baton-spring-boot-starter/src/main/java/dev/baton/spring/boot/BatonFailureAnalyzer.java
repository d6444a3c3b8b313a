package dev.baton.spring.boot;

import dev.baton.InvalidConfigException;
import dev.baton.Secrets;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a start-up that failed on a rejected Baton setting: which property, what it must be,
 * what was given. Registered in {@code META-INF/spring.factories}.
 */
public class BatonFailureAnalyzer extends AbstractFailureAnalyzer<InvalidConfigException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, InvalidConfigException cause) {
    String description =
        "Baton rejected "
            + cause.property()
            + ": expected "
            + cause.expected()
            + ", given "
            + quoted(cause.received())
            + ".";
    String action =
        cause instanceof InvalidBatonPropertyException property
            ? property.action()
            : "Correct " + cause.property() + " where the application builds it.";
    return new FailureAnalysis(Secrets.mask(description), Secrets.mask(action), cause);
  }

  private static String quoted(Object value) {
    return value instanceof String ? "\"" + value + "\"" : String.valueOf(value);
  }
}
