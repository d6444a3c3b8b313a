package dev.baton.spring.boot;

import dev.baton.Baton;
import dev.baton.opentelemetry.BatonTracing;
import io.opentelemetry.api.OpenTelemetry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * Traces the {@link Baton} bean's jobs with the application's {@link OpenTelemetry} bean, when
 * baton-opentelemetry is on the classpath: a customizer registers {@link BatonTracing} on the
 * client, so a job enqueued in a traced request carries its context and each handler attempt runs
 * in a child span. Ordered after Boot's OpenTelemetry auto-configuration (Boot 3's and Boot 4's
 * names), whose bean it uses; an application's own {@code OpenTelemetry} bean serves as well.
 */
@AutoConfiguration(
    before = BatonAutoConfiguration.class,
    afterName = {
      "org.springframework.boot.actuate.autoconfigure.opentelemetry.OpenTelemetryAutoConfiguration",
      "org.springframework.boot.opentelemetry.autoconfigure.OpenTelemetrySdkAutoConfiguration"
    })
@ConditionalOnClass({BatonTracing.class, OpenTelemetry.class, Baton.class})
@ConditionalOnBean(OpenTelemetry.class)
public class BatonTracingAutoConfiguration {

  /** Adds {@link BatonTracing} on {@code openTelemetry} to the client. */
  @Bean
  BatonBuilderCustomizer batonTracingCustomizer(OpenTelemetry openTelemetry) {
    return builder -> builder.interceptor(BatonTracing.create(openTelemetry));
  }
}
