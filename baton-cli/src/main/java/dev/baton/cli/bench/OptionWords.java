package dev.baton.cli.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The words of a benchmark command line as options: {@code --name value} or {@code --name=value}; a
 * flag ({@code --keep-schemas}) takes no following word (a {@code --flag=value} keeps its value,
 * for the caller to refuse or ignore). Shared by {@link BenchOptions} and the option parsers of the
 * benchmarks module, which each check the names and values they take.
 */
public final class OptionWords {
  private OptionWords() {}

  /** One option as given; {@code value} is null for a flag given without one. */
  public record Option(String name, String value, String word) {}

  /**
   * Splits {@code words} into options. {@code check} sees the name of every option that is not a
   * flag before its value is read, and throws {@link IllegalArgumentException} for a name its
   * command does not take.
   *
   * @throws IllegalArgumentException {@code option --name needs a value} when the words end early
   */
  public static List<Option> split(List<String> words, Set<String> flags, Consumer<String> check) {
    List<Option> out = new ArrayList<>();
    for (int i = 0; i < words.size(); i++) {
      String word = words.get(i);
      String name = word;
      String value = null;
      int eq = word.indexOf('=');
      if (word.startsWith("--") && eq > 0) {
        name = word.substring(0, eq);
        value = word.substring(eq + 1);
      }
      if (!flags.contains(name)) {
        check.accept(name);
        if (value == null) {
          if (i + 1 >= words.size()) {
            throw new IllegalArgumentException("option " + name + " needs a value");
          }
          value = words.get(++i);
        }
      }
      out.add(new Option(name, value, word));
    }
    return out;
  }
}
