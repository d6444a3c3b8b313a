package dev.baton.spring.boot.shop;

import dev.baton.JobArgs;

/** The confirmation email of order {@code orderId}. */
public record SendConfirmation(long orderId, String customer) implements JobArgs {}
