package dev.baton.cli;

import java.io.PrintWriter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** What every subcommand shares: the root's options and the output streams. */
abstract class BaseCommand {
  @Spec CommandSpec spec;

  /** The root command, holding the global options. */
  BatonCli root() {
    return (BatonCli) spec.root().userObject();
  }

  /** Standard output. */
  PrintWriter out() {
    return spec.commandLine().getOut();
  }

  /** Whether --json was given. */
  boolean json() {
    return root().json();
  }

  /** A usage error for a command that needs a subcommand and got none. */
  UsageException missingSubcommand() {
    return new UsageException(
        "missing subcommand; one of " + String.join(", ", spec.subcommands().keySet()));
  }
}
