package dev.baton.property;

/**
 * One step of a fencing scenario, applied to a {@link FencingWorld}. Holders are numbered 0..2,
 * jobs 0..2 in enqueue order (job 0 is claimed first while all are new). A write on a job names its
 * writer by role ({@link Writer}), resolved when the step runs, so that every step is defined in
 * every state and means the same thing after shrinking drops earlier steps. {@link #toString()} is
 * the factory call that replays the step: a shrunk sequence that the property reports can be pasted
 * into an example test as it is.
 */
interface Step {

  /** Runs the step against the database and checks its result against the model. */
  void applyTo(FencingWorld world);

  /** Who writes to a job: the holder of one of its claims, writing with that claim's fence. */
  enum Writer {
    /** The holder of the job's latest claim: its current holder while the job runs. */
    LATEST,
    /**
     * The holder of the claim before the latest (it lost the job; may be the same holder, as an old
     * attempt still running on its node); fence 0 if there was no such claim.
     */
    PREVIOUS,
    /** A holder that never claimed the job, writing with fence 0. */
    NEVER
  }

  /** How a transactional completion's transaction ends once the completion matched. */
  enum TxEnd {
    COMMIT,
    ROLLBACK
  }

  /** What else happens while a transactional completion holds the job's row lock. */
  enum Meanwhile {
    NOTHING,
    /** The writer's heartbeater beats for all the writer's jobs. */
    HEARTBEAT,
    /** The leader runs a rescue pass. */
    RESCUE
  }

  /** Holder {@code holder} claims up to {@code limit} jobs of the queue. */
  static Step claim(int holder, int limit) {
    return new Claim(holder, limit);
  }

  /** Holder {@code holder} beats for the latest claim it made of each job. */
  static Step heartbeat(int holder) {
    return new Heartbeat(holder);
  }

  /** Holder {@code holder}'s completer completes its latest claim of every job in one batch. */
  static Step completeAll(int holder) {
    return new CompleteAll(holder);
  }

  /** {@code writer} completes {@code job} (a plain batched completion). */
  static Step complete(int job, Writer writer) {
    return new Complete(job, writer);
  }

  /**
   * {@code writer} retries its plain completion of {@code job} after a try that failed without an
   * answer (which may have committed), as the completer does.
   */
  static Step retryComplete(int job, Writer writer) {
    return new RetryComplete(job, writer);
  }

  /**
   * {@code writer} completes {@code job} and claims up to {@code limit} jobs in one statement, as a
   * producer does.
   */
  static Step completeAndClaim(int job, Writer writer, int limit) {
    return new CompleteAndClaim(job, writer, limit);
  }

  /**
   * {@code writer} fails its attempt of {@code job}: retryable after {@code delayMinutes}, or
   * discarded on the last attempt.
   */
  static Step fail(int job, Writer writer, int delayMinutes) {
    return new Fail(job, writer, delayMinutes);
  }

  /** {@code writer} snoozes {@code job} for {@code delayMinutes} (0: available at once). */
  static Step snooze(int job, Writer writer, int delayMinutes) {
    return new Snooze(job, writer, delayMinutes);
  }

  /** {@code writer}'s handler cancels {@code job} ({@code CancelJob}). */
  static Step cancelByHolder(int job, Writer writer) {
    return new CancelByHolder(job, writer);
  }

  /**
   * {@code writer} completes {@code job} inside its own transaction together with a side effect, as
   * {@code ctx.completeIn(conn)} does; a completion that does not match rolls back.
   */
  static Step completeIn(int job, Writer writer, TxEnd end, Meanwhile meanwhile) {
    return new CompleteIn(job, writer, end, meanwhile);
  }

  /** {@code writer} extends its lease of {@code job} ({@code ctx.extendLease}). */
  static Step extend(int job, Writer writer) {
    return new Extend(job, writer);
  }

  /** The leader's clock jumps forward by {@code minutes}. */
  static Step jump(int minutes) {
    return new Jump(minutes);
  }

  /** The leader runs one rescue pass. */
  static Step rescue() {
    return new Rescue();
  }

  /** The leader runs one scheduler pass. */
  static Step schedule() {
    return new Schedule();
  }

  /** The leader runs a maintenance pass: a rescue pass, then a scheduler pass. */
  static Step maintain() {
    return new Maintain();
  }

  /** Someone cancels {@code job} ({@code baton.cancel(id)}). */
  static Step cancel(int job) {
    return new Cancel(job);
  }

  /** See {@link Step#claim}. */
  record Claim(int holder, int limit) implements Step {
    @Override
    public void applyTo(FencingWorld w) {
      w.claim(holder, limit);
    }

    @Override
    public String toString() {
      return "claim(" + holder + ", " + limit + ")";
    }
  }

  /** See {@link Step#heartbeat}. */
  record Heartbeat(int holder) implements Step {
    @Override
    public void applyTo(FencingWorld w) {
      w.heartbeat(holder);
    }

    @Override
    public String toString() {
      return "heartbeat(" + holder + ")";
    }
  }

  /** See {@link Step#completeAll}. */
  record CompleteAll(int holder) implements Step {
    @Override
    public void applyTo(FencingWorld w) {
      w.completeAll(holder);
    }

    @Override
    public String toString() {
      return "completeAll(" + holder + ")";
    }
  }

  /** See {@link Step#complete}. */
  record Complete(int job, Writer writer) implements Step {
    @Override
    public void applyTo(FencingWorld w) {
      w.complete(job, writer);
    }

    @Override
    public String toString() {
      return "complete(" + job + ", " + writer + ")";
    }
  }

  /** See {@link Step#retryComplete}. */
  record RetryComplete(int job, Writer writer) implements Step {
    @Override
    public void applyTo(FencingWorld w) {
      w.retryComplete(job, writer);
    }

    @Override
    public String toString() {
      return "retryComplete(" + job + ", " + writer + ")";
    }
  }

  /** See {@link Step#completeAndClaim}. */
  record CompleteAndClaim(int job, Writer writer, int limit) implements Step {
    @Override
    public void applyTo(FencingWorld w) {
      w.completeAndClaim(job, writer, limit);
    }

    @Override
    public String toString() {
      return "completeAndClaim(" + job + ", " + writer + ", " + limit + ")";
    }
  }

  /** See {@link Step#fail}. */
  record Fail(int job, Writer writer, int delayMinutes) implements Step {
    @Override
    public void applyTo(FencingWorld w) {
      w.fail(job, writer, delayMinutes);
    }

    @Override
    public String toString() {
      return "fail(" + job + ", " + writer + ", " + delayMinutes + ")";
    }
  }

  /** See {@link Step#snooze}. */
  record Snooze(int job, Writer writer, int delayMinutes) implements Step {
    @Override
    public void applyTo(FencingWorld w) {
      w.snooze(job, writer, delayMinutes);
    }

    @Override
    public String toString() {
      return "snooze(" + job + ", " + writer + ", " + delayMinutes + ")";
    }
  }

  /** See {@link Step#cancelByHolder}. */
  record CancelByHolder(int job, Writer writer) implements Step {
    @Override
    public void applyTo(FencingWorld w) {
      w.cancelByHolder(job, writer);
    }

    @Override
    public String toString() {
      return "cancelByHolder(" + job + ", " + writer + ")";
    }
  }

  /** See {@link Step#completeIn}. */
  record CompleteIn(int job, Writer writer, TxEnd end, Meanwhile meanwhile) implements Step {
    @Override
    public void applyTo(FencingWorld w) {
      w.completeIn(job, writer, end, meanwhile);
    }

    @Override
    public String toString() {
      return "completeIn(" + job + ", " + writer + ", " + end + ", " + meanwhile + ")";
    }
  }

  /** See {@link Step#extend}. */
  record Extend(int job, Writer writer) implements Step {
    @Override
    public void applyTo(FencingWorld w) {
      w.extend(job, writer);
    }

    @Override
    public String toString() {
      return "extend(" + job + ", " + writer + ")";
    }
  }

  /** See {@link Step#jump}. */
  record Jump(int minutes) implements Step {
    @Override
    public void applyTo(FencingWorld w) {
      w.jump(minutes);
    }

    @Override
    public String toString() {
      return "jump(" + minutes + ")";
    }
  }

  /** See {@link Step#rescue}. */
  record Rescue() implements Step {
    @Override
    public void applyTo(FencingWorld w) {
      w.rescue();
    }

    @Override
    public String toString() {
      return "rescue()";
    }
  }

  /** See {@link Step#schedule}. */
  record Schedule() implements Step {
    @Override
    public void applyTo(FencingWorld w) {
      w.schedule();
    }

    @Override
    public String toString() {
      return "schedule()";
    }
  }

  /** See {@link Step#maintain}. */
  record Maintain() implements Step {
    @Override
    public void applyTo(FencingWorld w) {
      w.rescue();
      w.schedule();
    }

    @Override
    public String toString() {
      return "maintain()";
    }
  }

  /** See {@link Step#cancel}. */
  record Cancel(int job) implements Step {
    @Override
    public void applyTo(FencingWorld w) {
      w.cancel(job);
    }

    @Override
    public String toString() {
      return "cancel(" + job + ")";
    }
  }
}
