/**
 * The {@code baton} command: {@link dev.baton.cli.BatonCli} and its subcommands (migrate, enqueue,
 * jobs, queues, nodes, stats, worker; demo in {@code dev.baton.cli.demo}, lab in {@code
 * dev.baton.cli.lab}; bench in {@code dev.baton.cli.bench}), built with picocli into one runnable
 * jar. Not a library API: the command line, its output and its exit codes are the interface.
 */
package dev.baton.cli;
