/**
 * The only package with SQL: one store per table ({@link dev.baton.internal.db.JobStore}, {@link
 * dev.baton.internal.db.MigrationStore}, {@link dev.baton.internal.db.InboxStore}). Each store
 * keeps its statements as constants at the top, named after the method that runs them. The schema
 * name is validated once and quoted; every value is a bind parameter. {@link java.sql.SQLException}
 * is wrapped here, once. Not public API.
 */
package dev.baton.internal.db;
