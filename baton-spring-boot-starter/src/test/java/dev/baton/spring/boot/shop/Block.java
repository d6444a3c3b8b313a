package dev.baton.spring.boot.shop;

import dev.baton.JobArgs;

/** A job whose handler blocks for a minute, for the stop tests. */
public record Block(String marker) implements JobArgs {}
