package dev.baton.internal.db;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a string constant of this package as a fragment of SQL that several statements share (the
 * claim, the fenced held-lock, the leader's term, the job columns, ...), not a statement of its
 * own. A statement is built from its fragments by concatenation at class load, so that each
 * fragment has one definition and a change to it reaches every statement that holds it. {@code
 * EveryStatementExplainsTest} runs {@code EXPLAIN} on every other string constant of this package
 * against a migrated schema, and checks that each fragment stands in at least two statements.
 *
 * <p>Not public API.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
@interface Fragment {}
