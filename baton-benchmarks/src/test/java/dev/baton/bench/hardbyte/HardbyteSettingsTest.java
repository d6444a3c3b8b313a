package dev.baton.bench.hardbyte;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HardbyteSettingsTest {

  @Test
  void libpqUrlBecomesAJdbcUrlWithUserAndPasswordAsParameters() {
    assertThat(HardbyteSettings.jdbcUrl("postgres://bench:bench@localhost:15555/baton_bench"))
        .isEqualTo("jdbc:postgresql://localhost:15555/baton_bench?user=bench&password=bench");
    assertThat(HardbyteSettings.jdbcUrl("postgresql://u%40x:p%3Aw%20d@10.0.0.1/db?sslmode=disable"))
        .isEqualTo(
            "jdbc:postgresql://10.0.0.1:5432/db?user=u%40x&password=p%3Aw%20d&sslmode=disable");
    assertThat(HardbyteSettings.jdbcUrl("postgres://alice@/"))
        .as("libpq defaults: localhost, 5432, the user's database")
        .isEqualTo("jdbc:postgresql://localhost:5432/alice?user=alice");
    assertThat(HardbyteSettings.jdbcUrl("jdbc:postgresql://h:1/d?user=u"))
        .isEqualTo("jdbc:postgresql://h:1/d?user=u");
  }

  @Test
  void dbNameComesFromEitherKindOfUrl() {
    assertThat(HardbyteSettings.dbName("postgres://b:b@localhost:15555/baton_bench"))
        .isEqualTo("baton_bench");
    assertThat(HardbyteSettings.dbName("jdbc:postgresql://h:1/d?user=u")).isEqualTo("d");
  }

  @Test
  void missingVariablesTakeTheHarnessDefaults() {
    HardbyteSettings s =
        HardbyteSettings.fromEnvironment(Map.of("DATABASE_URL", "postgres://b:b@h/baton_bench"));
    assertThat(s.scenario()).isEqualTo("long_horizon");
    assertThat(s.producerMode()).isEqualTo(HardbyteSettings.ProducerMode.FIXED);
    assertThat(s.producerRate()).isEqualTo(800);
    assertThat(s.targetDepth()).isEqualTo(1000);
    assertThat(s.workerCount()).isEqualTo(32);
    assertThat(s.payloadBytes()).isEqualTo(256);
    assertThat(s.jobWork()).isEqualTo(Duration.ofMillis(1));
    assertThat(s.sampleEvery()).isEqualTo(Duration.ofSeconds(5));
    assertThat(s.producerBatchMax()).isEqualTo(128);
    assertThat(s.harnessPacing()).isFalse();
    assertThat(s.rateControlFile()).isNull();
    assertThat(s.schema()).isEqualTo("baton");
  }

  @Test
  void badValuesNameTheVariableAndWhatWasReceived() {
    assertThatThrownBy(() -> HardbyteSettings.fromEnvironment(Map.of()))
        .hasMessageContaining("DATABASE_URL must be set");
    assertThatThrownBy(
            () ->
                HardbyteSettings.fromEnvironment(
                    Map.of("DATABASE_URL", "mysql://x/y", "SAMPLE_EVERY_S", "1")))
        .hasMessageContaining("DATABASE_URL must be postgres://");
    assertThatThrownBy(
            () ->
                HardbyteSettings.fromEnvironment(
                    Map.of("DATABASE_URL", "postgres://h/d", "SAMPLE_EVERY_S", "0")))
        .hasMessage("SAMPLE_EVERY_S must be >= 1, got 0");
    assertThatThrownBy(
            () ->
                HardbyteSettings.fromEnvironment(
                    Map.of("DATABASE_URL", "postgres://h/d", "WORKER_COUNT", "many")))
        .hasMessage("WORKER_COUNT must be a whole number >= 1, got \"many\"");
    assertThatThrownBy(
            () ->
                HardbyteSettings.fromEnvironment(
                    Map.of("DATABASE_URL", "postgres://h/d", "PRODUCER_MODE", "burst")))
        .hasMessage("PRODUCER_MODE must be fixed or depth-target, got \"burst\"");
  }
}
