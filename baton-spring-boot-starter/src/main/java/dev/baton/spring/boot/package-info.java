/**
 * Spring Boot auto-configuration of Baton, for Boot 3.5 and 4.0: {@link
 * dev.baton.spring.boot.BatonAutoConfiguration} (the client, {@link
 * dev.baton.spring.boot.BatonTemplate} for enqueueing in the current Spring transaction, {@link
 * dev.baton.spring.boot.BatonLifecycle}), {@link dev.baton.spring.boot.BatonProperties} (the {@code
 * baton.*} properties) and {@link dev.baton.spring.boot.BatonActuatorAutoConfiguration} (health and
 * metrics). Built on Baton's public API only; no queue logic of its own.
 */
package dev.baton.spring.boot;
