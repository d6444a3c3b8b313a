package dev.baton.cli;

import dev.baton.BatonException;
import dev.baton.InvalidConfigException;
import dev.baton.InvalidJobException;
import dev.baton.SchemaNotMigratedException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.sql.SQLException;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * Turns every error into one line on stderr, {@code baton: <what failed>: <why>; <remedy>}, and an
 * exit code: {@value BatonCli#USAGE} for a wrong command line, {@value BatonCli#FAILED} for a
 * command that failed. The stack trace only with {@code --verbose}. Passwords in URLs are masked.
 */
final class Errors {
  private final BatonCli root;

  Errors(BatonCli root) {
    this.root = root;
  }

  /** A command line picocli could not parse: unknown option, missing or malformed value. */
  int onParameterException(ParameterException ex, String[] args) {
    CommandLine cmd = ex.getCommandLine();
    PrintWriter err = cmd.getErr();
    print(
        err, ex.getMessage() + " (see '" + cmd.getCommandSpec().qualifiedName() + " --help')", ex);
    return BatonCli.USAGE;
  }

  /** An exception thrown by a command. */
  int onExecutionException(Exception ex, CommandLine cmd, ParseResult parseResult) {
    PrintWriter err = cmd.getErr();
    int code = BatonCli.FAILED;
    String message;
    // Whatever is printed is masked by print(): text from the driver or the library may carry a
    // password.
    if (ex instanceof UsageException) {
      code = BatonCli.USAGE;
      message = ex.getMessage() + " (see '" + cmd.getCommandSpec().qualifiedName() + " --help')";
    } else if (ex instanceof InvalidConfigException || ex instanceof InvalidJobException) {
      // A value the user gave (schema, queue name, priority, kind, args) was rejected.
      code = BatonCli.USAGE;
      message = ex.getMessage() + " (see '" + cmd.getCommandSpec().qualifiedName() + " --help')";
    } else if (ex instanceof CommandFailedException) {
      message = ex.getMessage();
    } else if (ex instanceof SchemaNotMigratedException) {
      message = ex.getMessage() + "; run 'baton migrate up' first, or pass the right --schema";
    } else {
      SQLException sql = sqlCause(ex);
      if (sql != null) {
        Described d = describe(ex, sql);
        code = d.code();
        message = d.message();
      } else if (ex instanceof BatonException) {
        message = ex.getMessage();
      } else {
        message =
            "unexpected error: "
                + ex
                + (root.verbose() ? "" : " (run with --verbose for the stack trace)");
      }
    }
    print(err, message, ex);
    return code;
  }

  /**
   * Prints {@code message} as one line, and with --verbose the stack trace of {@code ex}, both with
   * every password masked: a driver's or the JDK's text (an UnknownHostException naming
   * "user:secret@host") may quote the URL in any form.
   */
  private void print(PrintWriter err, String message, Exception ex) {
    String url = root.databaseUrlGiven();
    err.println("baton: " + Database.redact(message.replaceAll("\\s*\\R\\s*", " "), url));
    if (root.verbose()) {
      StringWriter trace = new StringWriter();
      ex.printStackTrace(new PrintWriter(trace));
      err.print(Database.redact(trace.toString(), url));
    }
    err.flush();
  }

  private record Described(int code, String message) {}

  private Described describe(Exception ex, SQLException sql) {
    String state = sql.getSQLState() == null ? "" : sql.getSQLState();
    String url = root.databaseUrlForMessages();
    // The server's first line says what went wrong; the rest (Position:, Where:) is noise here.
    String text =
        (sql.getMessage() == null ? sql.toString() : sql.getMessage())
            .lines()
            .findFirst()
            .orElse("");
    if (text.startsWith("No suitable driver")) {
      return new Described(
          BatonCli.USAGE,
          "the database URL '"
              + url
              + "' is not a valid PostgreSQL JDBC URL; expected e.g. "
              + Database.EXAMPLE_URL);
    }
    if (state.startsWith("08")) {
      Throwable cause = sql.getCause();
      return new Described(
          BatonCli.FAILED,
          "cannot connect to PostgreSQL at "
              + url
              + ": "
              + text
              + (cause != null && cause.getMessage() != null ? " (" + cause + ")" : "")
              + (text.contains("timed out") ? loginTimeoutHint(url) : "")
              + "; check --database-url or "
              + Database.ENV_URL
              + " and that the server is running and reachable");
    }
    if (state.startsWith("28")) {
      return new Described(
          BatonCli.FAILED,
          "PostgreSQL refused the login at "
              + url
              + ": "
              + text
              + "; check the user and password in the URL");
    }
    if (state.equals("3D000")) {
      return new Described(
          BatonCli.FAILED,
          "cannot connect to PostgreSQL at " + url + ": " + text + "; check the database name");
    }
    if (state.equals("42P01") || state.equals("3F000")) {
      return new Described(
          BatonCli.FAILED,
          "schema \""
              + root.schema()
              + "\" has no Baton tables ("
              + text
              + "); run 'baton migrate up' first, or pass the schema that has them with --schema");
    }
    if (state.equals("42501")) {
      // Only a migration needs the schema's owner; a client's work needs the grants listed.
      boolean migrating = message(ex).startsWith("cannot migrate");
      return new Described(
          BatonCli.FAILED,
          message(ex)
              + (migrating
                  ? "; migrations need the schema's owner (or a role that may run DDL in it): pass"
                      + " that role in the URL"
                  : "; the role in the URL lacks a privilege (see docs/operations/least-privilege.md)"));
    }
    return new Described(BatonCli.FAILED, message(ex));
  }

  /** What the login timeout was, for a connection attempt that ran out of it. */
  private static String loginTimeoutHint(String url) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("[?&]loginTimeout=(\\d+)").matcher(url == null ? "" : url);
    String seconds = m.find() ? m.group(1) : String.valueOf(Database.LOGIN_TIMEOUT_S);
    return " (no answer within the login timeout of "
        + seconds
        + " s; for a slower server add loginTimeout=SECONDS to the URL)";
  }

  private static String message(Exception ex) {
    return ex.getMessage() != null ? ex.getMessage() : ex.toString();
  }

  private static SQLException sqlCause(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof SQLException s) {
        return s;
      }
      if (c.getCause() == c) {
        break;
      }
    }
    return null;
  }
}
