/**
 * Micrometer meters of a Baton client: {@link dev.baton.metrics.BatonMetrics}. The only package of
 * core that uses Micrometer, an optional dependency: nothing else in core loads it, so a client
 * runs without Micrometer on the classpath as long as this package is not used. The meters are
 * listed in {@code docs/metrics.md}.
 */
package dev.baton.metrics;
