/**
 * Service provider interfaces: extension points that a process Baton runs, rather than the
 * application, discovers with {@link java.util.ServiceLoader}. {@link
 * dev.baton.spi.HandlerProvider} supplies the job handlers of {@code baton worker}. Public API.
 */
package dev.baton.spi;
