package dev.baton.examples.springboot;

import dev.baton.JobArgs;

/** The confirmation email of one order: a job's args, stored as JSON in the job row. */
public record SendOrderEmail(long orderId, String recipient, long totalCents) implements JobArgs {}
