package dev.baton.internal.db;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.InvalidJobException;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * What a new job must be before its first statement: values that PostgreSQL stores exactly as
 * given. The driver encodes text as UTF-8, replacing an unpaired surrogate by {@code ?} (so two
 * distinct idempotency keys could become one), and the server rejects NUL in {@code text} and the
 * escape {@code \u0000} in {@code jsonb}; both are refused here, naming the field, instead of being
 * changed or failing in the SQL. Every enqueue path (single, transactional, bulk by statement or
 * {@code COPY}, {@link dev.baton.admin.JobAdmin}) prepares its jobs through these methods.
 */
public final class NewJobCheck {

  /** Deepest nesting of maps, lists and arrays accepted in metadata: 64 levels. */
  public static final int MAX_METADATA_DEPTH = 64;

  private NewJobCheck() {}

  /**
   * {@code metadata} as a JSON object.
   *
   * @throws InvalidJobException if it holds itself (a cycle), is nested deeper than {@value
   *     #MAX_METADATA_DEPTH} levels, or cannot be serialised
   */
  public static String metadataJson(ObjectMapper mapper, String kind, Map<String, ?> metadata) {
    if (metadata.isEmpty()) {
      return "{}";
    }
    walk(
        kind,
        metadata,
        "metadata",
        1,
        java.util.Collections.newSetFromMap(new IdentityHashMap<>()));
    try {
      return mapper.writeValueAsString(metadata);
    } catch (JsonProcessingException e) {
      throw new InvalidJobException(
          prefix(kind) + "metadata cannot be serialised to JSON: " + e.getOriginalMessage(), e);
    } catch (StackOverflowError e) {
      // A value the walk does not enter (an object of the caller's class) that holds itself.
      throw new InvalidJobException(
          prefix(kind)
              + "metadata cannot be serialised to JSON: it nests too deeply for this thread's"
              + " stack (a value that holds itself?); expected at most "
              + MAX_METADATA_DEPTH
              + " levels");
    }
  }

  /**
   * Checks a new job's text (queue, kind, args, idempotency key, metadata) and the size of its
   * metadata. Takes the values, not the job, so that this file and the store's do not need each
   * other.
   *
   * @throws InvalidJobException naming the field: text that is not valid Unicode (an unpaired
   *     surrogate) or holds NUL, or metadata over {@code maxMetadataBytes} bytes of JSON
   */
  public static void check(
      String queue,
      String kind,
      String args,
      String idempotencyKey,
      String metadata,
      int maxMetadataBytes) {
    text(kind, "queue", queue, false);
    text(kind, "kind", kind, false);
    text(kind, "args", args, true);
    text(kind, "idempotencyKey", idempotencyKey, false);
    text(kind, "metadata", metadata, true);
    size(kind, "metadata is", metadata, maxMetadataBytes, "maxMetadataBytes");
  }

  /**
   * Checks that {@code json} ({@code what}: "args are") is at most {@code maxBytes} of UTF-8, the
   * limit of the BatonConfig {@code setting}.
   */
  static void size(String kind, String what, String json, int maxBytes, String setting) {
    // A UTF-8 character takes at most 3 bytes per UTF-16 unit: shorter text needs no count.
    int bytes =
        json.length() > maxBytes / 3 ? json.getBytes(StandardCharsets.UTF_8).length : json.length();
    if (bytes > maxBytes) {
      throw new InvalidJobException(
          prefix(kind)
              + what
              + " "
              + bytes
              + " bytes of JSON, over the limit of "
              + maxBytes
              + " (BatonConfig "
              + setting
              + "); store large data elsewhere and pass a reference");
    }
  }

  private static String prefix(String kind) {
    return "cannot enqueue job (kind=" + kind + "): ";
  }

  private static void walk(String kind, Object value, String path, int depth, Set<Object> open) {
    Iterator<?> children;
    if (value instanceof Map<?, ?> m) {
      children = m.values().iterator();
    } else if (value instanceof Collection<?> c) {
      children = c.iterator();
    } else if (value instanceof Object[] a) {
      children = java.util.Arrays.asList(a).iterator();
    } else if (value instanceof JsonNode n && n.isContainerNode()) {
      children = n.elements();
    } else {
      return;
    }
    if (!open.add(value)) {
      throw new InvalidJobException(
          prefix(kind)
              + "metadata must be a tree of values, got a cycle: "
              + path
              + " holds a map or list that also holds it");
    }
    if (depth > MAX_METADATA_DEPTH) {
      throw new InvalidJobException(
          prefix(kind)
              + "metadata must be nested at most "
              + MAX_METADATA_DEPTH
              + " levels deep, got deeper at "
              + path);
    }
    int i = 0;
    Iterator<?> keys = value instanceof Map<?, ?> m ? m.keySet().iterator() : null;
    while (children.hasNext()) {
      Object child = children.next();
      String name = keys != null ? path + "." + keys.next() : path + "[" + i + "]";
      walk(kind, child, name, depth + 1, open);
      i++;
    }
    open.remove(value);
  }

  private static void text(String kind, String field, String value, boolean json) {
    if (value == null) {
      return;
    }
    int n = value.length();
    for (int i = 0; i < n; i++) {
      char c = value.charAt(i);
      int at = i;
      boolean escaped = false;
      if (json && c == '\\' && i + 1 < n) {
        // Inside a JSON string: an escape is two characters, or six for \\uXXXX, which is
        // checked as the code unit it stands for (PostgreSQL's jsonb decodes it).
        if (value.charAt(i + 1) != 'u' || i + 6 > n) {
          i++;
          continue;
        }
        c = (char) Integer.parseInt(value, i + 2, i + 6, 16);
        i += 5;
        escaped = true;
      }
      if (c == 0) {
        throw bad(kind, field, value, json, "a NUL character (U+0000)", at);
      }
      if (Character.isHighSurrogate(c)) {
        // A pair is two raw characters or two escapes; PostgreSQL takes no mix of both.
        if (escaped
            && i + 7 <= n
            && value.startsWith("\\u", i + 1)
            && Character.isLowSurrogate((char) Integer.parseInt(value, i + 3, i + 7, 16))) {
          i += 6;
          continue;
        }
        if (!escaped && i + 1 < n && Character.isLowSurrogate(value.charAt(i + 1))) {
          i++;
          continue;
        }
      }
      if (Character.isSurrogate(c)) {
        throw bad(kind, field, value, json, "an unpaired surrogate " + escape(c), at);
      }
    }
  }

  private static InvalidJobException bad(
      String kind, String field, String value, boolean json, String what, int at) {
    return new InvalidJobException(
        prefix(kind)
            + field
            + " must be valid Unicode text without NUL characters, got "
            + what
            + " at character "
            + (at + 1)
            + (json ? " of its JSON" : " of " + shown(value)));
  }

  /** {@code value} quoted, with what a terminal cannot show as \\uXXXX, shortened past 40. */
  private static String shown(String value) {
    StringBuilder sb = new StringBuilder("\"");
    int n = Math.min(value.length(), 40);
    for (int i = 0; i < n; i++) {
      char c = value.charAt(i);
      sb.append(Character.isSurrogate(c) || Character.isISOControl(c) ? escape(c) : c);
    }
    return sb.append(value.length() > n ? "...\" (" + value.length() + " characters)" : "\"")
        .toString();
  }

  private static String escape(char c) {
    return String.format("\\u%04X", (int) c);
  }
}
