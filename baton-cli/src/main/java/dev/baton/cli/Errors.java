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
    String replaced = replacedText(java.util.Arrays.asList(args));
    if (replaced != null) {
      print(err, replaced, ex);
      return BatonCli.USAGE;
    }
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
        Described d = describe(ex, sql, cmd.getCommandSpec().qualifiedName());
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
   * Why the command line cannot be taken as given, or null: an argument holding U+FFFD, which the
   * JVM puts for bytes of the command line (or of an @-file) that are not valid UTF-8. Taken as it
   * is, two distinct idempotency keys or kinds could become one.
   */
  static String replacedText(java.util.List<String> args) {
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (a != null && a.indexOf('\uFFFD') >= 0) {
        String escaped = a.replace("\uFFFD", "\\uFFFD");
        return "argument "
            + (i + 1)
            + " is not valid UTF-8 text: '"
            + escaped
            + "' holds U+FFFD, which stands for bytes that are not UTF-8; pass the text in UTF-8"
            + " (check the terminal's or the script's encoding)";
      }
    }
    return null;
  }

  /** The longest error line printed whole; a longer one keeps its start and its end. */
  static final int MAX_LINE = 1_000;

  /** {@code line}, with its middle left out when it is longer than {@link #MAX_LINE}. */
  static String capped(String line) {
    if (line.length() <= MAX_LINE) {
      return line;
    }
    int head = MAX_LINE * 2 / 3;
    int tail = MAX_LINE - head;
    return line.substring(0, head)
        + " ... ("
        + (line.length() - head - tail)
        + " characters left out) ... "
        + line.substring(line.length() - tail);
  }

  /**
   * Prints {@code message} as one line, and with --verbose the stack trace of {@code ex}, both with
   * every password masked: a driver's or the JDK's text (an UnknownHostException naming
   * "user:secret@host") may quote the URL in any form.
   */
  private void print(PrintWriter err, String message, Exception ex) {
    String url = root.databaseUrlGiven();
    err.println("baton: " + capped(Database.redact(message.replaceAll("\\s*\\R\\s*", " "), url)));
    if (root.verbose()) {
      StringWriter trace = new StringWriter();
      ex.printStackTrace(new PrintWriter(trace));
      err.print(Database.redact(trace.toString(), url));
    }
    err.flush();
  }

  private record Described(int code, String message) {}

  // The driver's words for a URL parameter it cannot use ("Invalid sslmode value: bogus").
  private static final java.util.regex.Pattern BAD_PARAMETER =
      java.util.regex.Pattern.compile("^(Invalid \\w+ value|Unsupported value for)");

  private Described describe(Exception ex, SQLException sql, String command) {
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
    if (state.startsWith("08") && BAD_PARAMETER.matcher(text).find()) {
      // The driver refused a parameter of the URL before any connection: nothing to do with
      // whether the server is reachable.
      return new Described(
          BatonCli.USAGE,
          "the database URL '"
              + url
              + "' has a parameter the driver refuses: "
              + text
              + "; correct it in --database-url or "
              + Database.ENV_URL);
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
      // Only a migration needs the schema's owner; a client's work needs the grants listed. A
      // migration that fails reading the version is still a migration.
      boolean migrating =
          message(ex).startsWith("cannot migrate") || command.startsWith("baton migrate");
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
