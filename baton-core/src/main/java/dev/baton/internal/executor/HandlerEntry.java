package dev.baton.internal.executor;

import dev.baton.JobArgs;
import dev.baton.JobHandler;
import java.time.Duration;

/**
 * A registered handler: its args type, the handler, and its kind's timeout (null for the client's
 * default). Not public API.
 */
public record HandlerEntry<A extends JobArgs>(
    String kind, Class<A> argsType, JobHandler<A> handler, Duration timeout) {}
