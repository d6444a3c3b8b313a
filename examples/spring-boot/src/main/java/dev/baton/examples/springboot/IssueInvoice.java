package dev.baton.examples.springboot;

import dev.baton.JobArgs;

/** The invoice of one order: a job's args, stored as JSON in the job row. */
public record IssueInvoice(long orderId, long totalCents) implements JobArgs {}
