package dev.baton.spring.boot.shop;

import dev.baton.JobArgs;

/** The periodic job's args. */
public record Tick() implements JobArgs {}
