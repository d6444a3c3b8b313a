package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class JobsCliTest {
  private static CliRunner cli;

  @BeforeAll
  static void schema() {
    cli = CliRunner.onNewMigratedSchema();
  }

  @Test
  void listFiltersByStateQueueAndKindNewestFirst() {
    long a = cli.enqueue("list_a", "--queue", "lq1");
    long b = cli.enqueue("list_a", "--queue", "lq1");
    long c = cli.enqueue("list_b", "--queue", "lq1");
    cli.markFinal(b, "discarded");

    JsonNode all = cli.run("jobs", "list", "--queue", "lq1", "--json").json();
    assertThat(all.findValuesAsText("id")).containsExactly("" + c, "" + b, "" + a);

    JsonNode discarded =
        cli.run("jobs", "list", "--queue", "lq1", "--state", "discarded", "--json").json();
    assertThat(discarded.findValuesAsText("id")).containsExactly("" + b);

    JsonNode kindA =
        cli.run("jobs", "list", "--kind", "list_a", "--state", "AVAILABLE", "--json").json();
    assertThat(kindA.findValuesAsText("id")).containsExactly("" + a);

    JsonNode limited = cli.run("jobs", "list", "--queue", "lq1", "--limit", "1", "--json").json();
    assertThat(limited.size()).isEqualTo(1);

    CliRunner.Result text = cli.run("jobs", "list", "--queue", "lq1");
    assertThat(text.exitCode()).isZero();
    assertThat(text.out().lines().findFirst().orElseThrow())
        .startsWith("ID")
        .contains("STATE")
        .contains("LAST_ERROR");
    assertThat(text.out()).contains("discarded").contains("java.io.IOException: smtp down");

    assertThat(cli.run("jobs", "list", "--queue", "nothing-here").out())
        .isEqualTo("no jobs match\n");
  }

  @Test
  void listRejectsABadStateOrLimit() {
    CliRunner.Result state = cli.run("jobs", "list", "--state", "done");
    assertThat(state.exitCode()).isEqualTo(BatonCli.USAGE);
    assertThat(state.errLines()).hasSize(1);
    assertThat(state.err()).contains("--state").contains("completed");

    CliRunner.Result limit = cli.run("jobs", "list", "--limit", "0");
    assertThat(limit.exitCode()).isEqualTo(BatonCli.USAGE);
    assertThat(limit.err()).contains("--limit");
  }

  @Test
  void showPrintsTheJobAsTextOrJson() {
    long id = cli.enqueue("show_me", "--idempotency-key", "show-1");
    CliRunner.Result text = cli.run("jobs", "show", "" + id);
    assertThat(text.exitCode()).isZero();
    assertThat(text.out()).contains("show_me").contains("show-1").contains("available");

    JsonNode job = cli.run("jobs", "show", "" + id, "--json").json();
    assertThat(job.path("id").asLong()).isEqualTo(id);
    assertThat(job.path("kind").asText()).isEqualTo("show_me");
    assertThat(job.path("args").isObject()).isTrue();
    assertThat(job.path("errors").isArray()).isTrue();
  }

  record Step(int n) implements dev.baton.JobArgs {}

  @Test
  void showPrintsAWorkflowStepsDependenciesDependentsOutputStepsAndProgress() {
    dev.baton.Baton client =
        dev.baton.Baton.builder(cli.db.admin())
            .config(
                dev.baton.BatonConfig.builder().schema(cli.schema).allowUnknownKinds(true).build())
            .build();
    dev.baton.EnqueuedWorkflow wf =
        client.enqueueWorkflow(
            dev.baton.Workflow.builder()
                .step("fetch", new Step(1))
                .step("report", new Step(2), "fetch")
                .build());
    long fetch = wf.id("fetch");
    cli.db.execute(
        "UPDATE "
            + cli.schema
            + ".job SET output = '{\"rows\": 3}', progress = jsonb_build_object('fraction', 0.5,"
            + " 'message', 'half', 'at', now()), steps = jsonb_build_object('download',"
            + " jsonb_build_object('result', 7, 'attempt', 1, 'at', now())) WHERE id = "
            + fetch);

    CliRunner.Result text = cli.run("jobs", "show", "" + fetch);
    assertThat(text.exitCode()).as(text.err()).isZero();
    assertThat(text.out())
        .contains("progress 50%: half")
        .contains("output {\"rows\":3}")
        .contains("download")
        .contains("DEPENDENT")
        .contains("" + wf.id("report"))
        .contains("pending");
    CliRunner.Result report = cli.run("jobs", "show", "" + wf.id("report"));
    assertThat(report.out()).contains("DEPENDS_ON").contains("fetch").contains("pending");

    JsonNode json = cli.run("jobs", "show", "" + wf.id("report"), "--json").json();
    assertThat(json.path("state").asText()).isEqualTo("pending");
    assertThat(json.path("workflow").path("dependencies").get(0).path("name").asText())
        .isEqualTo("fetch");
  }

  @Test
  void anUnknownJobIdFailsWithOneLineOnEveryJobCommand() {
    for (String command : new String[] {"show", "retry", "cancel", "delete"}) {
      CliRunner.Result r = cli.run("jobs", command, "987654321");
      assertThat(r.exitCode()).as(command).isEqualTo(BatonCli.FAILED);
      assertThat(r.out()).isEmpty();
      assertThat(r.errLines()).as(command).hasSize(1);
      assertThat(r.err()).contains("job 987654321 does not exist").contains("baton jobs list");
    }
    CliRunner.Result notANumber = cli.run("jobs", "show", "abc");
    assertThat(notANumber.exitCode()).isEqualTo(BatonCli.USAGE);
    assertThat(notANumber.errLines()).hasSize(1);
  }

  @Test
  void retryMakesADiscardedJobAvailableKeepingItsAttempt() {
    long id = cli.enqueue("retry_me", "--max-attempts", "3");
    cli.markFinal(id, "discarded");

    CliRunner.Result r = cli.run("jobs", "retry", "" + id);
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.out())
        .isEqualTo("job " + id + " retried: discarded -> available (attempt 3 of 4)\n");
    assertThat(cli.column(id, "state")).isEqualTo("available");
    assertThat(cli.column(id, "attempt")).isEqualTo("3");
    assertThat(cli.column(id, "finalized_at")).isNull();
    assertThat(cli.column(id, "metadata ->> 'retried_from'")).isEqualTo("discarded");
    assertThat(cli.column(id, "metadata ->> 'retried_by'")).startsWith("cli:");
    assertThat(cli.column(id, "jsonb_array_length(errors)")).isEqualTo("1");

    CliRunner.Result again = cli.run("jobs", "retry", "" + id, "--json");
    assertThat(again.exitCode()).isZero();
    assertThat(again.json().path("outcome").asText()).isEqualTo("already_available");
  }

  @Test
  void retryOfACancelledJobDropsTheCancelRequest() {
    long id = cli.enqueue("retry_cancelled");
    assertThat(cli.run("jobs", "cancel", "" + id).exitCode()).isZero();
    assertThat(cli.column(id, "metadata ? 'cancel_requested_at'")).isEqualTo("t");

    JsonNode r = cli.run("jobs", "retry", "" + id, "--json").json();
    assertThat(r.path("outcome").asText()).isEqualTo("retried");
    assertThat(r.path("previous_state").asText()).isEqualTo("cancelled");
    assertThat(cli.column(id, "metadata ? 'cancel_requested_at'")).isEqualTo("f");
  }

  @Test
  void retryRefusesARunningJobAndLeavesItAlone() {
    long id = cli.enqueue("retry_running");
    cli.markRunning(id, "node-7");
    String fence = cli.column(id, "fence");

    CliRunner.Result r = cli.run("jobs", "retry", "" + id);
    assertThat(r.exitCode()).isEqualTo(BatonCli.FAILED);
    assertThat(r.out()).isEmpty();
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err())
        .contains("cannot retry job " + id + ": it is running")
        .contains("node-7")
        .contains("baton jobs cancel " + id);
    assertThat(cli.column(id, "state")).isEqualTo("running");
    assertThat(cli.column(id, "fence")).isEqualTo(fence);
    assertThat(cli.column(id, "metadata ? 'retried_at'")).isEqualTo("f");
  }

  @Test
  void cancelCancelsAWaitingJobAndFlagsARunningOne() {
    long waiting = cli.enqueue("cancel_me");
    CliRunner.Result r = cli.run("jobs", "cancel", "" + waiting);
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.out()).isEqualTo("job " + waiting + " cancelled\n");
    assertThat(cli.column(waiting, "state")).isEqualTo("cancelled");

    CliRunner.Result again = cli.run("jobs", "cancel", "" + waiting, "--json");
    assertThat(again.exitCode()).isZero();
    assertThat(again.json().path("outcome").asText()).isEqualTo("already_cancelled");

    long running = cli.enqueue("cancel_running");
    cli.markRunning(running, "node-8");
    JsonNode flagged = cli.run("jobs", "cancel", "" + running, "--json").json();
    assertThat(flagged.path("outcome").asText()).isEqualTo("cancel_requested");
    assertThat(flagged.path("job").path("state").asText()).isEqualTo("running");
    assertThat(cli.column(running, "metadata ? 'cancel_requested_at'")).isEqualTo("t");
  }

  @Test
  void cancelRefusesACompletedJob() {
    long id = cli.enqueue("cancel_completed");
    cli.markFinal(id, "completed");
    CliRunner.Result r = cli.run("jobs", "cancel", "" + id);
    assertThat(r.exitCode()).isEqualTo(BatonCli.FAILED);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).contains("cannot cancel job " + id + ": it is already completed");
    assertThat(cli.column(id, "state")).isEqualTo("completed");
  }

  @Test
  void deleteRemovesAFinishedJob() {
    long id = cli.enqueue("delete_me", "--idempotency-key", "delete-me-1");
    cli.markFinal(id, "completed");
    CliRunner.Result r = cli.run("jobs", "delete", "" + id);
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.out()).isEqualTo("job " + id + " deleted (it was completed)\n");
    assertThat(cli.db.queryLong("SELECT count(*) FROM " + cli.schema + ".job WHERE id = " + id))
        .isZero();
    // the key is free again
    long next = cli.enqueue("delete_me", "--idempotency-key", "delete-me-1");
    assertThat(next).isNotEqualTo(id);
  }

  @Test
  void deleteRefusesARunningJobAndLeavesItAlone() {
    long id = cli.enqueue("delete_running");
    cli.markRunning(id, "node-9");
    CliRunner.Result r = cli.run("jobs", "delete", "" + id, "--json");
    assertThat(r.exitCode()).isEqualTo(BatonCli.FAILED);
    assertThat(r.out()).isEmpty();
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err())
        .contains("cannot delete job " + id + ": it is running")
        .contains("baton jobs cancel " + id);
    assertThat(cli.column(id, "state")).isEqualTo("running");
  }
}
