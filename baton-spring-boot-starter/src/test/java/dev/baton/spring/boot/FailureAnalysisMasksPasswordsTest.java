package dev.baton.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.InvalidConfigException;
import dev.baton.SchemaNotMigratedException;
import org.junit.jupiter.api.Test;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** The starter's failure analyses print what they quote with every password masked. */
class FailureAnalysisMasksPasswordsTest {

  @Test
  void aRejectedSettingQuotingAUrlIsShownWithItsPasswordMasked() {
    InvalidConfigException e =
        new InvalidConfigException(
            "baton.schema", "an identifier", "jdbc:postgresql://db/app?user=u&password=hunter2");
    FailureAnalysis a = new BatonFailureAnalyzer().analyze(e, e);
    assertThat(a.getDescription()).contains("password=***").doesNotContain("hunter2");
    assertThat(a.getAction()).doesNotContain("hunter2");
  }

  @Test
  void aSchemaFailureQuotingADriverMessageIsShownWithItsPasswordMasked() {
    SchemaNotMigratedException e =
        new SchemaNotMigratedException(
            "baton", "Unable to parse URL jdbc:postgresql://app:hunter2@db.invalid/app");
    FailureAnalysis a = new BatonSchemaFailureAnalyzer().analyze(e, e);
    assertThat(a.getDescription()).contains("app:***@db.invalid").doesNotContain("hunter2");
  }
}
