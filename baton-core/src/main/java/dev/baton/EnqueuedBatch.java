package dev.baton;

/**
 * The jobs a batch enqueued.
 *
 * @param ids the members' ids, in request order
 * @param callbackId the callback job's id: it runs once, when every member is final
 */
public record EnqueuedBatch(long[] ids, long callbackId) {}
