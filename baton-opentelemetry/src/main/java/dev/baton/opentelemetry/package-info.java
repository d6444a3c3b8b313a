/**
 * OpenTelemetry tracing for Baton jobs: {@link dev.baton.opentelemetry.BatonTracing}, a {@link
 * dev.baton.spi.JobInterceptor} that carries the enqueue's trace context to the handler. Public
 * API.
 */
package dev.baton.opentelemetry;
