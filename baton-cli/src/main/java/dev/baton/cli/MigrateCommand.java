package dev.baton.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.SchemaTooNewException;
import dev.baton.migrate.Migrator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code baton migrate [up|down|print]}: the schema's tables. */
@Command(
    name = "migrate",
    mixinStandardHelpOptions = true,
    description = {
      "Create or upgrade Baton's tables in the schema (the default), revert the latest version,"
          + " or print the SQL.",
      "Run it as a role that may run DDL in the schema (its owner)."
    },
    subcommands = {MigrateCommand.Up.class, MigrateCommand.Down.class, MigrateCommand.Print.class})
final class MigrateCommand extends BaseCommand implements Callable<Integer> {

  @Override
  public Integer call() {
    return up(this);
  }

  static int up(BaseCommand cmd) {
    Migrator m = new Migrator(cmd.root().dataSource(), cmd.root().schema());
    List<Integer> applied = m.up();
    int version = m.currentVersion();
    report(cmd, "applied", applied, version);
    if (!cmd.json()) {
      cmd.out()
          .println(
              applied.isEmpty()
                  ? "schema " + cmd.root().schema() + " is up to date (version " + version + ")"
                  : "schema "
                      + cmd.root().schema()
                      + ": applied version "
                      + join(applied)
                      + "; now at version "
                      + version);
    }
    return BatonCli.OK;
  }

  private static void report(BaseCommand cmd, String field, List<Integer> versions, int version) {
    if (cmd.json()) {
      ObjectNode o = Output.object();
      o.put("schema", cmd.root().schema());
      versions.forEach(o.putArray(field)::add);
      o.put("version", version);
      Output.printJson(cmd.out(), o);
    }
  }

  private static String join(List<Integer> versions) {
    return versions.stream().map(String::valueOf).collect(Collectors.joining(", "));
  }

  /** {@code baton migrate up}. */
  @Command(
      name = "up",
      mixinStandardHelpOptions = true,
      description =
          "Apply every pending version (safe to repeat; concurrent runs apply each once).")
  static final class Up extends BaseCommand implements Callable<Integer> {
    @Override
    public Integer call() {
      return up(this);
    }
  }

  /** {@code baton migrate down --yes}. */
  @Command(
      name = "down",
      mixinStandardHelpOptions = true,
      description = {
        "Revert the latest applied version. Reverting version 1 drops the job table and every job"
            + " in it; --yes confirms."
      })
  static final class Down extends BaseCommand implements Callable<Integer> {
    @Option(names = "--yes", description = "Confirm: revert, dropping what that version created")
    boolean yes;

    @Override
    public Integer call() {
      Migrator m = new Migrator(root().dataSource(), root().schema());
      int current = m.currentVersion();
      if (current > m.latestVersion()) {
        throw new SchemaTooNewException(root().schema(), current, m.latestVersion());
      }
      if (current == 0) {
        report(this, "reverted", List.of(), 0);
        if (!json()) {
          out().println("schema " + root().schema() + " has no applied version; nothing to revert");
        }
        return BatonCli.OK;
      }
      if (!yes) {
        throw new UsageException(
            "migrate down reverts version "
                + current
                + " of schema "
                + root().schema()
                + ", dropping its tables and their rows; run it again with --yes to confirm");
      }
      List<Integer> reverted = m.down();
      int version = m.currentVersion();
      report(this, "reverted", reverted, version);
      if (!json()) {
        out()
            .println(
                "schema "
                    + root().schema()
                    + ": reverted version "
                    + join(reverted)
                    + "; now at version "
                    + version);
      }
      return BatonCli.OK;
    }
  }

  /** {@code baton migrate print}. */
  @Command(
      name = "print",
      mixinStandardHelpOptions = true,
      description = {
        "Print the SQL of every version, for Flyway, Liquibase or psql. Needs no database;"
            + " --json does not apply."
      })
  static final class Print extends BaseCommand implements Callable<Integer> {
    @Override
    public Integer call() {
      out().print(new Migrator(Database.none(), root().schema()).print());
      out().flush();
      return BatonCli.OK;
    }
  }
}
