/**
 * Operator actions on the job table that a worker never needs: {@link dev.baton.admin.JobAdmin}
 * lists jobs, enqueues a job by kind name with raw JSON args, retries and deletes jobs; {@link
 * dev.baton.admin.JobBrowser} pages through jobs by keyset; {@link dev.baton.admin.StatsAdmin}
 * reads per-queue figures and completions over time; {@link dev.baton.admin.PeriodicAdmin} lists
 * periodic schedules. Used by the {@code baton} command and the dashboard. Public API.
 */
package dev.baton.admin;
