package dev.baton.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.Dependency;
import dev.baton.Job;
import dev.baton.JobError;
import dev.baton.JobState;
import dev.baton.admin.BatonAdmin;
import dev.baton.admin.JobAdmin;
import dev.baton.admin.JobWorkflow;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code baton jobs list|show|retry|cancel|delete}. */
@Command(
    name = "jobs",
    mixinStandardHelpOptions = true,
    description = "List, inspect, retry, cancel and delete jobs.",
    subcommands = {
      JobsCommand.ListJobs.class,
      JobsCommand.Show.class,
      JobsCommand.Retry.class,
      JobsCommand.Cancel.class,
      JobsCommand.Delete.class
    })
final class JobsCommand extends BaseCommand implements Callable<Integer> {

  @Override
  public Integer call() {
    throw missingSubcommand();
  }

  static CommandFailedException notFound(BaseCommand cmd, long id) {
    return new CommandFailedException(
        "job "
            + id
            + " does not exist in schema "
            + cmd.root().schema()
            + " (finished jobs are deleted after their retention); see 'baton jobs list'");
  }

  /** {@code baton jobs list}. */
  @Command(name = "list", mixinStandardHelpOptions = true, description = "List jobs, newest first.")
  static final class ListJobs extends BaseCommand implements Callable<Integer> {
    @Option(
        names = "--state",
        paramLabel = "STATE",
        converter = StateConverter.class,
        description =
            "Only jobs in this state: pending, scheduled, available, running, retryable, completed,"
                + " cancelled, discarded")
    JobState state;

    @Option(names = "--queue", paramLabel = "QUEUE", description = "Only jobs in this queue")
    String queue;

    @Option(names = "--kind", paramLabel = "KIND", description = "Only jobs of this kind")
    String kind;

    @Option(
        names = "--limit",
        paramLabel = "N",
        defaultValue = "" + JobAdmin.DEFAULT_LIST_LIMIT,
        description =
            "Most jobs listed, 1.." + JobAdmin.MAX_LIST_LIMIT + " (default: ${DEFAULT-VALUE})")
    int limit;

    @Override
    public Integer call() {
      if (limit < 1 || limit > JobAdmin.MAX_LIST_LIMIT) {
        throw new UsageException(
            "invalid --limit: expected 1.." + JobAdmin.MAX_LIST_LIMIT + ", got " + limit);
      }
      List<Job> jobs = root().admin().list(JobAdmin.ListFilter.of(state, queue, kind, limit));
      if (json()) {
        ArrayNode a = Output.array();
        jobs.forEach(j -> a.add(Output.job(j)));
        Output.printJson(out(), a);
        return BatonCli.OK;
      }
      if (jobs.isEmpty()) {
        out().println("no jobs match");
        return BatonCli.OK;
      }
      Output.Table t =
          new Output.Table(
              "ID", "STATE", "QUEUE", "KIND", "ATTEMPT", "PRIORITY", "SCHEDULED_AT", "LAST_ERROR");
      for (Job j : jobs) {
        t.row(
            j.id(),
            j.state().dbName(),
            j.queue(),
            j.kind(),
            j.attempt() + "/" + j.maxAttempts(),
            j.priority(),
            Output.time(j.scheduledAt()),
            lastError(j));
      }
      t.print(out());
      return BatonCli.OK;
    }

    private static String lastError(Job j) {
      if (j.errors().isEmpty()) {
        return null;
      }
      JobError e = j.errors().get(j.errors().size() - 1);
      String s = e.error() + (e.message() != null ? ": " + e.message() : "");
      s = s.replaceAll("\\s+", " ");
      return s.length() > 60 ? s.substring(0, 57) + "..." : s;
    }
  }

  /** {@code baton jobs show ID}. */
  @Command(
      name = "show",
      mixinStandardHelpOptions = true,
      description = "Show one job: its row, args, errors and metadata.")
  static final class Show extends BaseCommand implements Callable<Integer> {
    @Parameters(paramLabel = "ID", description = "The job id")
    long id;

    @Override
    public Integer call() {
      Job job = root().admin().get(id).orElseThrow(() -> notFound(this, id));
      JobWorkflow wf = root().admin().workflow(id).orElse(null);
      if (json()) {
        ObjectNode o = Output.job(job);
        if (wf != null) {
          o.set("workflow", Output.object().pojoNode(wf));
        }
        Output.printJson(out(), o);
        return BatonCli.OK;
      }
      print(out(), job);
      if (wf != null) {
        printWorkflow(out(), wf);
      }
      return BatonCli.OK;
    }

    /** The dependencies, dependents, output, steps and progress, each only when there is some. */
    static void printWorkflow(PrintWriter out, JobWorkflow wf) {
      if (wf.progress() != null) {
        out.println();
        out.printf(
            Locale.ROOT,
            "progress %.0f%%%s at %s%n",
            wf.progress().fraction() * 100,
            wf.progress().message() == null ? "" : ": " + wf.progress().message(),
            Output.time(wf.progress().at()));
      }
      if (wf.output() != null) {
        out.println();
        out.println("output " + wf.output());
      }
      if (!wf.steps().isEmpty()) {
        out.println();
        Output.Table t = new Output.Table("STEP", "ATTEMPT", "RECORDED_AT", "RESULT");
        for (JobWorkflow.StepRecord r : wf.steps()) {
          t.row(r.name(), r.attempt(), Output.time(r.at()), String.valueOf(r.result()));
        }
        t.print(out);
      }
      if (!wf.dependencies().isEmpty()) {
        out.println();
        Output.Table t = new Output.Table("DEPENDS_ON", "STEP", "STATE", "OUTPUT");
        for (Dependency d : wf.dependencies()) {
          t.row(
              d.jobId(),
              d.name() == null ? "" : d.name(),
              d.state().dbName(),
              d.output() == null ? "" : d.output().toString());
        }
        t.print(out);
      }
      if (!wf.dependents().isEmpty()) {
        out.println();
        Output.Table t = new Output.Table("DEPENDENT", "AS_STEP", "ON_FAILURE", "STATE");
        for (JobWorkflow.Dependent d : wf.dependents()) {
          t.row(
              d.jobId(),
              d.name() == null ? "" : d.name(),
              d.onFailure().dbName(),
              d.state() == null ? "(cleaned)" : d.state().dbName());
        }
        t.print(out);
      }
      out.flush();
    }

    static void print(PrintWriter out, Job j) {
      Output.Table t = new Output.Table("FIELD", "VALUE");
      t.row("id", j.id());
      t.row("state", j.state().dbName());
      t.row("queue", j.queue());
      t.row("kind", j.kind());
      t.row("priority", j.priority());
      t.row("attempt", j.attempt() + " of " + j.maxAttempts());
      t.row("scheduled_at", Output.time(j.scheduledAt()));
      t.row("attempted_at", Output.time(j.attemptedAt()));
      t.row("attempted_by", j.attemptedBy());
      t.row("lease_expires_at", Output.time(j.leaseExpiresAt()));
      t.row("deadline_at", Output.time(j.deadlineAt()));
      t.row("fence", j.fence());
      t.row("idempotency_key", j.idempotencyKey());
      t.row("created_at", Output.time(j.createdAt()));
      t.row("finalized_at", Output.time(j.finalizedAt()));
      t.row("args", j.args().toString());
      t.row("metadata", j.metadata().toString());
      t.row("errors", j.errors().size());
      t.print(out);
      for (JobError e : j.errors()) {
        out.println();
        out.println(
            "attempt "
                + e.attempt()
                + " at "
                + Output.time(e.at())
                + ": "
                + e.error()
                + (e.message() != null ? ": " + e.message() : ""));
        if (e.trace() != null) {
          e.trace().lines().forEach(l -> out.println("    " + l));
        }
      }
      out.flush();
    }
  }

  /** {@code baton jobs retry ID}. */
  @Command(
      name = "retry",
      mixinStandardHelpOptions = true,
      description = {
        "Make a job that is not running available now: a discarded, cancelled or completed job"
            + " runs again, a scheduled or retryable one runs without waiting.",
        "Its attempt count is kept (one more attempt is granted when none is left); the retry is"
            + " noted in its metadata (retried_at, retried_by, retried_from, retry_count).",
        "A running job is refused: cancel it first."
      })
  static final class Retry extends BaseCommand implements Callable<Integer> {
    @Parameters(paramLabel = "ID", description = "The job id")
    long id;

    @Override
    public Integer call() {
      JobAdmin.RetryResult r = root().admin().retry(id, Database.operatorId());
      switch (r.outcome()) {
        case NOT_FOUND -> throw notFound(this, id);
        case RUNNING ->
            throw new CommandFailedException(
                "cannot retry job "
                    + id
                    + ": it is running (attempt "
                    + r.job().attempt()
                    + ", held by "
                    + r.job().attemptedBy()
                    + "); wait for it to finish, or cancel it with 'baton jobs cancel "
                    + id
                    + "' first");
        case PENDING ->
            throw new CommandFailedException(
                "cannot retry job "
                    + id
                    + ": it is pending (it waits for its dependencies); retry a failed dependency,"
                    + " or cancel it with 'baton jobs cancel "
                    + id
                    + "'");
        default -> {
          // RETRIED or ALREADY_AVAILABLE
        }
      }
      if (json()) {
        ObjectNode o = Output.object();
        o.put("outcome", r.outcome().name().toLowerCase(Locale.ROOT));
        o.put("previous_state", r.previousState().dbName());
        o.set("job", Output.job(r.job()));
        Output.printJson(out(), o);
      } else if (r.outcome() == JobAdmin.RetryOutcome.ALREADY_AVAILABLE) {
        out().println("job " + id + " is already available; nothing to retry");
      } else {
        out()
            .println(
                "job "
                    + id
                    + " retried: "
                    + r.previousState().dbName()
                    + " -> available (attempt "
                    + r.job().attempt()
                    + " of "
                    + r.job().maxAttempts()
                    + ")");
      }
      return BatonCli.OK;
    }
  }

  /** {@code baton jobs cancel ID}. */
  @Command(
      name = "cancel",
      mixinStandardHelpOptions = true,
      description = {
        "Cancel a job. A waiting job is cancelled at once; a running one is flagged and its worker"
            + " told to interrupt the handler (it becomes cancelled when the handler gives up)."
      })
  static final class Cancel extends BaseCommand implements Callable<Integer> {
    @Parameters(paramLabel = "ID", description = "The job id")
    long id;

    @Override
    public Integer call() {
      BatonAdmin admin = root().admin();
      Job before = admin.get(id).orElseThrow(() -> notFound(this, id));
      Optional<JobState> after = before.state().isFinal() ? Optional.empty() : admin.cancel(id);
      String outcome;
      String text;
      if (after.isPresent() && after.get() == JobState.CANCELLED) {
        outcome = "cancelled";
        text = "job " + id + " cancelled";
      } else if (after.isPresent()) {
        outcome = "cancel_requested";
        text =
            "job "
                + id
                + " is running: its worker was told to stop it; it becomes cancelled when its"
                + " handler gives up (a handler that completes anyway completes)";
      } else {
        Job now = admin.get(id).orElseThrow(() -> notFound(this, id));
        if (now.state() != JobState.CANCELLED) {
          throw new CommandFailedException(
              "cannot cancel job " + id + ": it is already " + now.state().dbName());
        }
        outcome = "already_cancelled";
        text = "job " + id + " is already cancelled";
      }
      if (json()) {
        ObjectNode o = Output.object();
        o.put("outcome", outcome);
        admin.get(id).ifPresent(j -> o.set("job", Output.job(j)));
        Output.printJson(out(), o);
      } else {
        out().println(text);
      }
      return BatonCli.OK;
    }
  }

  /** {@code baton jobs delete ID}. */
  @Command(
      name = "delete",
      mixinStandardHelpOptions = true,
      description = {
        "Delete a job that is not running, with its errors and metadata; its idempotency key is"
            + " free again. A running job is refused: cancel it first."
      })
  static final class Delete extends BaseCommand implements Callable<Integer> {
    @Parameters(paramLabel = "ID", description = "The job id")
    long id;

    @Override
    public Integer call() {
      JobAdmin.DeleteResult r = root().admin().delete(id);
      switch (r.outcome()) {
        case NOT_FOUND -> throw notFound(this, id);
        case RUNNING ->
            throw new CommandFailedException(
                "cannot delete job "
                    + id
                    + ": it is running (held by "
                    + r.job().attemptedBy()
                    + "); cancel it with 'baton jobs cancel "
                    + id
                    + "' and delete it once it is cancelled");
        default -> {
          // DELETED
        }
      }
      if (json()) {
        ObjectNode o = Output.object();
        o.put("outcome", "deleted");
        o.set("job", Output.job(r.job()));
        Output.printJson(out(), o);
      } else {
        out().println("job " + id + " deleted (it was " + r.job().state().dbName() + ")");
      }
      return BatonCli.OK;
    }
  }

  /** A state by its stored name, in any case. */
  static final class StateConverter implements CommandLine.ITypeConverter<JobState> {
    @Override
    public JobState convert(String value) {
      try {
        return JobState.fromDb(value.toLowerCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }
}
