package dev.baton.dashboard;

import dev.baton.testing.Fixture;

/** Jobs written straight into a test schema, in the states the dashboard tests need. */
final class Seed {
  private Seed() {}

  /** Args of user data that must render as text: a script element and an attribute breaker. */
  static final String SCRIPT_ARGS =
      "{\"to\": \"a@example.com\", \"note\": \"<script>window.pwned = 1</script>\\\" onmouseover=\\\"x\"}";

  /** A discarded job of {@code queue} with one failed attempt (error and stack trace); its id. */
  static long discarded(Fixture f, String queue, String args) {
    return f.count(
        "INSERT INTO %s.job (queue, kind, args, state, attempt, max_attempts, finalized_at,"
            + " attempted_at, attempted_by, fence, errors) VALUES ('"
            + queue
            + "', 'send_email', '"
            + args.replace("'", "''")
            + "', 'discarded', 1, 1, now(), now() - interval '1 second', 'node-a', 7,"
            + " jsonb_build_array(jsonb_build_object('attempt', 1, 'at', now(), 'error',"
            + " 'java.io.IOException', 'message', 'smtp <b>down</b>', 'trace',"
            + " 'java.io.IOException: smtp down' || chr(10) || '\tat Mail.send(Mail.java:10)')))"
            + " RETURNING id");
  }

  /** An available job of {@code queue}; its id. */
  static long available(Fixture f, String queue) {
    return f.count(
        "INSERT INTO %s.job (queue, kind, args) VALUES ('" + queue + "', 'k', '{}') RETURNING id");
  }

  /** A job scheduled an hour from now; its id. */
  static long scheduled(Fixture f, String queue) {
    return f.count(
        "INSERT INTO %s.job (queue, kind, state, scheduled_at) VALUES ('"
            + queue
            + "', 'k', 'scheduled', now() + interval '1 hour') RETURNING id");
  }

  /** A job held by a worker (running, under a lease); its id. */
  static long running(Fixture f, String queue) {
    return f.count(
        "INSERT INTO %s.job (queue, kind, state, attempt, attempted_at, attempted_by,"
            + " lease_expires_at, fence) VALUES ('"
            + queue
            + "', 'k', 'running', 1, now(), 'node-a', now() + interval '5 minutes', 3)"
            + " RETURNING id");
  }

  /** The state of job {@code id} as stored. */
  static String state(Fixture f, long id) {
    return f.db().queryString("SELECT state FROM " + f.schema() + ".job WHERE id = " + id);
  }
}
