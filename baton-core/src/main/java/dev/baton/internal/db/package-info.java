/**
 * The only package with SQL: one store per role. {@link dev.baton.internal.db.EnqueueStore} inserts
 * jobs; {@link dev.baton.internal.db.HolderStore} claims them and holds every write guarded by
 * {@code (id, fence, state)}; {@link dev.baton.internal.db.AdminStore} reads, lists, retries,
 * deletes and cancels jobs by id; {@link dev.baton.internal.db.MaintenanceStore} holds the leader's
 * statements (fenced by its {@link dev.baton.internal.db.Leadership} term); {@link
 * dev.baton.internal.db.ClusterStore} the node registry, elections and queue controls; {@link
 * dev.baton.internal.db.BrowseStore} the reads of a person browsing the queue (keyset pages of
 * jobs, capped counts, completions per time bucket, periodic schedules); {@link
 * dev.baton.internal.db.PollStore} a node's one poll of all its queues; {@link
 * dev.baton.internal.db.StatsStore}, {@link dev.baton.internal.db.MigrationStore} and {@link
 * dev.baton.internal.db.InboxStore} the rest. Each store keeps its statements as constants at the
 * top, named after the method that runs them; a variant is a statement of its own. SQL that several
 * statements share (the claim, the fenced held-lock, the leader's term, the job columns of {@link
 * dev.baton.internal.db.JobRow}) is a {@link dev.baton.internal.db.Fragment} constant, defined once
 * beside the statements it belongs to, and statements are concatenated from fragments and text
 * blocks at class load, never by replacing text. The schema name is validated once and substituted
 * for {@code ${schema}} by {@link dev.baton.internal.db.SchemaName#expand}; every value is a bind
 * parameter. {@link java.sql.SQLException} is wrapped here, once. This package depends on no other
 * internal package. Not public API.
 */
package dev.baton.internal.db;
