package dev.baton;

/**
 * A job of a kind that no handler on this client is registered for was enqueued while unknown kinds
 * are rejected (the default). Register a handler, declare the kind with {@link
 * BatonConfig.Builder#knownKinds}, or allow unknown kinds.
 */
public class UnknownKindException extends BatonException {
  private static final long serialVersionUID = 1L;
  private final String kind;

  /** Creates the exception for {@code kind}. */
  public UnknownKindException(String kind) {
    super(
        "cannot enqueue job (kind="
            + kind
            + "): no handler is registered for this kind on this client; register a handler,"
            + " declare it with BatonConfig.Builder.knownKinds(...), or set"
            + " allowUnknownKinds(true)");
    this.kind = kind;
  }

  /** The kind that was not known. */
  public String kind() {
    return kind;
  }
}
