/**
 * {@code baton demo}: the shop of Baton's mission. Orders and their confirmation-email jobs are
 * committed together; three worker pods (separate JVMs) send the emails through a mail provider (an
 * HTTP server on loopback that honours {@code Idempotency-Key} and refuses stale fences); one pod
 * is killed after the provider accepted an email, one is frozen past its lease, and every database
 * connection of the pods is terminated once. The report checks that every committed order got
 * exactly one email and no rolled-back order got any.
 */
package dev.baton.cli.demo;
