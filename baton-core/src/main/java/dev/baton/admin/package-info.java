/**
 * Baton's operator API. {@link dev.baton.admin.BatonAdmin} is the one entry point: get, list, page
 * through, enqueue by kind name, retry, run now, cancel and delete jobs; pause and resume queues,
 * list them and read their figures; list nodes, the leader and periodic schedules. It is made from
 * a {@code DataSource} and a schema, without a client or a node, and is what the {@code baton}
 * command, the dashboard and the Spring Boot starter use; a {@link dev.baton.Baton} client's
 * operator methods delegate to it. Its parts stay public for their result types and for callers
 * that need only one of them: {@link dev.baton.admin.JobAdmin} (actions on one job, lists), {@link
 * dev.baton.admin.JobBrowser} (keyset pages), {@link dev.baton.admin.StatsAdmin} (per-queue figures
 * and completions over time), {@link dev.baton.admin.PeriodicAdmin} (periodic schedules). Public
 * API.
 */
package dev.baton.admin;
