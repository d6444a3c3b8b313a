/**
 * Schema migrations: {@link dev.baton.migrate.Migrator} applies, reverts and prints the numbered
 * SQL scripts that create Baton's tables. Public API.
 */
package dev.baton.migrate;
