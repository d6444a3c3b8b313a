package dev.baton.cli.lab;

import java.util.List;

/**
 * The outcome of a lab run.
 *
 * @param postgresVersion the server's {@code server_version}
 * @param results one per strategy, in the order run
 */
public record LabReport(String postgresVersion, List<StrategyResult> results) {
  public LabReport {
    results = List.copyOf(results);
  }
}
