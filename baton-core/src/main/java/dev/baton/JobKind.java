package dev.baton;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** Names the kind of a {@link JobArgs} class explicitly, instead of deriving it from its name. */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface JobKind {
  /** The kind: 1-128 characters of letters, digits and {@code _ . : - /}. */
  String value();
}
