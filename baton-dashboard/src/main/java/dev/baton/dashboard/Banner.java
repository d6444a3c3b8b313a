package dev.baton.dashboard;

import dev.baton.QueueConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The message a page shows after an action redirected to it: the redirect carries only a known
 * outcome code ({@code done}) and the numbers or names it needs ({@code job}, {@code queue}, {@code
 * n}, {@code skipped}), and the page writes the sentence itself. A link that carries any other
 * code, or a parameter that is not a job id, a queue name or a count, shows no message: nobody can
 * make the dashboard show words of their choosing by sending someone a link.
 */
final class Banner {
  private Banner() {}

  /** Sentences by outcome code; {@code {job}}, {@code {queue}}, {@code {n}} are filled in. */
  private static final Map<String, String> SENTENCES =
      Map.ofEntries(
          Map.entry("retried", "job {job} retried; it is available"),
          Map.entry("already_available", "job {job} is available already"),
          Map.entry("run_now", "job {job} made available now"),
          Map.entry("cancelled", "job {job} cancelled"),
          Map.entry(
              "cancel_requested",
              "job {job} is running: its worker was told to stop it; it becomes cancelled then"),
          Map.entry("already_cancelled", "job {job} is cancelled already"),
          Map.entry("deleted", "job {job} deleted"),
          Map.entry("not_found", "no job with id {job}"),
          Map.entry("paused", "queue {queue} paused"),
          Map.entry("resumed", "queue {queue} resumed"),
          Map.entry("not_paused", "queue {queue} was not paused"),
          Map.entry("cap_set", "queue {queue} backlog cap set to {n}"),
          Map.entry("cap_removed", "queue {queue} backlog cap removed"),
          Map.entry("no_cap", "queue {queue} had no backlog cap"),
          Map.entry("limit_set", "queue {queue} limited to {n} running jobs across the cluster"),
          Map.entry("limit_removed", "queue {queue} has no cluster-wide concurrency limit now"),
          Map.entry("key_limit_set", "queue {queue} limited to {n} running jobs per key"),
          Map.entry("key_limit_removed", "queue {queue} has no concurrency limit per key now"),
          Map.entry("rate_set", "queue {queue} limited to {n} starts per period"),
          Map.entry("rate_key_set", "queue {queue} limited to {n} starts per key per period"),
          Map.entry("rate_removed", "queue {queue} has no rate limit now"),
          Map.entry("signed_in", "signed in"),
          Map.entry("bulk_retry", "{n} jobs retried"),
          Map.entry("bulk_delete", "{n} jobs deleted"),
          Map.entry("bulk_cancel", "{n} jobs cancelled"),
          Map.entry("bulk_run", "{n} jobs made available now"));

  /** The query parameters of a redirect after {@code outcome} (no leading {@code ?}). */
  static String query(String outcome, Long job, String queue) {
    List<String> parts = new ArrayList<>(List.of("done=" + Html.url(outcome)));
    if (job != null) {
      parts.add("job=" + job);
    }
    if (queue != null) {
      parts.add("queue=" + Html.url(queue));
    }
    return String.join("&", parts);
  }

  /** The query parameters of a redirect after a bulk action. */
  static String bulkQuery(String action, long done, long skipped) {
    return "done=bulk_" + action + "&n=" + done + "&skipped=" + skipped;
  }

  /** The sentence for the request's {@code done} code and parameters, or null for none. */
  static String message(Request r) {
    String code = r.param("done");
    String sentence = code == null ? null : SENTENCES.get(code);
    if (sentence == null) {
      return null;
    }
    String job = r.param("job");
    String queue = r.param("queue");
    String n = r.param("n");
    if (sentence.contains("{job}") && !isCount(job)
        || sentence.contains("{queue}") && (queue == null || !QueueConfig.isValidName(queue))
        || sentence.contains("{n}") && !isCount(n)) {
      return null;
    }
    String out = sentence.replace("{job}", "" + job).replace("{queue}", "" + queue);
    out = out.replace("{n}", "" + n);
    String skipped = r.param("skipped");
    if (code.startsWith("bulk_") && isCount(skipped) && !skipped.equals("0")) {
      out += ", " + skipped + " left as they were (running, or changed)";
    }
    return out;
  }

  private static boolean isCount(String v) {
    return v != null && v.length() <= 18 && v.chars().allMatch(c -> c >= '0' && c <= '9');
  }
}
