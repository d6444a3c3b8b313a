package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testing.ChildProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The default node id is {@code <host>-<slot>}: two live processes on one host differ, and a
 * process that restarts (after a kill -9 too) takes the same id again; a second client in one
 * process gets {@code -2} after it. Each child gets a temporary directory of its own test's, so
 * other processes on the machine take no slot of it.
 */
class DefaultNodeIdTest {

  /** Prints the default node ids of two configs, then waits for stdin to close. */
  public static final class PrintIds {
    public static void main(String[] args) throws Exception {
      System.out.println("first=" + BatonConfig.builder().build().nodeId());
      System.out.println("second=" + BatonConfig.builder().build().nodeId());
      System.out.flush();
      System.in.read(); // until the test closes stdin or kills the process
    }
  }

  @Test
  void twoProcessesOnOneHostDifferAndARestartedOneKeepsItsId() throws Exception {
    Path tmp = Files.createTempDirectory("baton-node-slots");
    List<String> flags = List.of("-Djava.io.tmpdir=" + tmp);
    try (ChildProcess a = ChildProcess.start("a", PrintIds.class, flags);
        ChildProcess b = ChildProcess.start("b", PrintIds.class, flags)) {
      String idA = id(a, "first=");
      String idB = id(b, "first=");
      assertThat(idA).isNotEqualTo(idB);
      assertThat(List.of(idA, idB)).allSatisfy(id -> assertThat(id).matches(".+-[12]"));
      assertThat(id(a, "second=")).isEqualTo(idA + "-2");

      a.killHard();
      try (ChildProcess restarted = ChildProcess.start("a2", PrintIds.class, flags)) {
        assertThat(id(restarted, "first=")).isEqualTo(idA);
      }
    }
  }

  @Test
  void aSetNodeIdIsKeptAndNoneIsComputedForIt() {
    BatonConfig config = BatonConfig.builder().nodeId("web-7").build();

    assertThat(config.nodeId()).isEqualTo("web-7");
    assertThat(config.toBuilder().build().nodeId()).isEqualTo("web-7");
  }

  private static String id(ChildProcess p, String prefix) {
    await().atMost(Duration.ofSeconds(30)).until(() -> p.line(prefix).isPresent());
    return p.line(prefix).orElseThrow().substring(prefix.length());
  }
}
