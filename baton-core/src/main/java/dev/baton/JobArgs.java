package dev.baton;

import java.util.Locale;

/**
 * Marker for a job's args: a record (or any Jackson-mappable class) stored as JSONB in the job row.
 *
 * <p>The job's kind is the value of {@link JobKind} on the class, else the class's simple name in
 * snake case ({@code SendEmail} becomes {@code send_email}). Keep the kind stable: rows written by
 * older versions of the code are claimed by kind.
 *
 * <pre>{@code
 * @JobKind("send_email")
 * record SendEmail(long orderId, String to) implements JobArgs {}
 * }</pre>
 */
public interface JobArgs {

  /**
   * The kind of jobs whose args are of {@code type}.
   *
   * @throws InvalidJobException if {@link JobKind} holds a value that is not a valid kind
   */
  static String kindOf(Class<?> type) {
    JobKind annotation = type.getAnnotation(JobKind.class);
    String kind = annotation != null ? annotation.value() : snakeCase(type.getSimpleName());
    if (!isValidKind(kind)) {
      throw new InvalidJobException(
          "invalid job kind for "
              + type.getName()
              + ": expected 1-128 characters of letters, digits and _ . : - /, got \""
              + kind
              + "\"");
    }
    return kind;
  }

  /** Whether {@code kind} is 1 to 128 characters of letters, digits and {@code _ . : - /}. */
  static boolean isValidKind(String kind) {
    return kind != null && kind.matches("[A-Za-z0-9_.:/-]{1,128}");
  }

  private static String snakeCase(String name) {
    return name.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toLowerCase(Locale.ROOT);
  }
}
