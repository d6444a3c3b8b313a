/**
 * Operator actions on the job table that a worker never needs: {@link dev.baton.admin.JobAdmin}
 * lists jobs, enqueues a job by kind name with raw JSON args, retries and deletes jobs. Used by the
 * {@code baton} command. Public API.
 */
package dev.baton.admin;
