package dev.baton.property;

import static dev.baton.property.Step.Writer.LATEST;
import static dev.baton.property.Step.Writer.NEVER;
import static dev.baton.property.Step.Writer.PREVIOUS;

import dev.baton.property.Step.Meanwhile;
import dev.baton.property.Step.TxEnd;
import dev.baton.property.Step.Writer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Predicate;

/**
 * Random fencing scenarios and their shrinking, for {@link FencingPropertyTest}.
 *
 * <p>A scenario is a list of {@link Step}s drawn with fixed weights from one seeded {@link Random},
 * so a seed names a run. Every step is defined in every state (a write names its writer by role),
 * so any step can be dropped: a failing scenario shrinks by removing chunks of steps, halving the
 * chunk size until single steps, for as long as what is left still fails (delta debugging).
 */
final class Scenarios {
  /** Most steps in one scenario. */
  static final int MAX_STEPS = 40;

  private Scenarios() {}

  /** A scenario of 20 to {@value #MAX_STEPS} steps. */
  static List<Step> draw(Random r) {
    int n = 20 + r.nextInt(MAX_STEPS - 19);
    List<Step> steps = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      steps.add(step(r));
    }
    return steps;
  }

  // Weights per kind of step: claims 6, writes 7, clock jumps 5, rescue 3, schedule 3, maintain
  // (rescue then schedule) 4, a holder's batch 2, an outside cancel 1.
  private static Step step(Random r) {
    int pick = r.nextInt(31);
    if (pick < 6) {
      return Step.claim(holder(r), 1 + r.nextInt(2));
    } else if (pick < 13) {
      return write(r, job(r), writer(r));
    } else if (pick < 18) {
      return Step.jump(r.nextInt(3) == 0 ? 25 : 65); // within a lease, or past one
    } else if (pick < 21) {
      return Step.rescue();
    } else if (pick < 24) {
      return Step.schedule();
    } else if (pick < 28) {
      return Step.maintain();
    } else if (pick < 30) {
      // a holder that stalled and wakes up writes for all its jobs at once
      return r.nextInt(4) < 3 ? Step.heartbeat(holder(r)) : Step.completeAll(holder(r));
    } else {
      return Step.cancel(job(r));
    }
  }

  // The job's current holder 5, the holder that lost it 4, one that never claimed it 1.
  private static Writer writer(Random r) {
    int pick = r.nextInt(10);
    return pick < 5 ? LATEST : pick < 9 ? PREVIOUS : NEVER;
  }

  // complete 1, complete-and-claim 1, fail 3, snooze 4, cancel by the handler 1, transactional
  // completion 5, lease extension 1, retried completion 2.
  private static Step write(Random r, int j, Writer w) {
    int pick = r.nextInt(18);
    if (pick < 1) {
      return Step.complete(j, w);
    } else if (pick < 2) {
      return Step.completeAndClaim(j, w, r.nextInt(2));
    } else if (pick < 5) {
      return Step.fail(j, w, new int[] {0, 10, 30}[r.nextInt(3)]);
    } else if (pick < 9) {
      return Step.snooze(j, w, r.nextBoolean() ? 0 : 30);
    } else if (pick < 10) {
      return Step.cancelByHolder(j, w);
    } else if (pick < 15) {
      TxEnd end = TxEnd.values()[r.nextInt(TxEnd.values().length)];
      Meanwhile meanwhile = Meanwhile.values()[r.nextInt(Meanwhile.values().length)];
      return Step.completeIn(j, w, end, meanwhile);
    } else if (pick < 16) {
      return Step.extend(j, w);
    } else {
      return Step.retryComplete(j, w);
    }
  }

  private static int holder(Random r) {
    return r.nextInt(FencingWorld.HOLDERS);
  }

  private static int job(Random r) {
    return r.nextInt(FencingWorld.MAX_ATTEMPTS.length);
  }

  /**
   * The smallest sublist of {@code failing} (by removing chunks, then single steps) for which
   * {@code fails} still holds. {@code fails} must hold for {@code failing}.
   */
  static List<Step> shrink(List<Step> failing, Predicate<List<Step>> fails) {
    List<Step> current = new ArrayList<>(failing);
    int parts = 2;
    while (current.size() >= 2) {
      int chunk = (current.size() + parts - 1) / parts;
      boolean smaller = false;
      for (int from = 0; from < current.size(); from += chunk) {
        List<Step> candidate = new ArrayList<>(current.subList(0, from));
        candidate.addAll(current.subList(Math.min(current.size(), from + chunk), current.size()));
        if (fails.test(candidate)) {
          current = candidate;
          parts = Math.max(parts - 1, 2);
          smaller = true;
          break;
        }
      }
      if (!smaller) {
        if (chunk == 1) {
          break;
        }
        parts = Math.min(current.size(), parts * 2);
      }
    }
    if (current.size() == 1 && fails.test(List.of())) {
      return List.of();
    }
    return current;
  }
}
