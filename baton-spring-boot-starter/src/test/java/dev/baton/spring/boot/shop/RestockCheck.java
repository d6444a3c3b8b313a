package dev.baton.spring.boot.shop;

import dev.baton.JobArgs;

/** A check of one product's stock, worked in batches by the shop's batch handler bean. */
public record RestockCheck(String sku) implements JobArgs {}
