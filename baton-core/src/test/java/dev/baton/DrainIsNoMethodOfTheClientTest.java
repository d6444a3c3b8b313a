package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Running jobs inline is for tests: the production client's public API has no drain, and the test
 * kit reaches it through {@link Drain} alone.
 */
class DrainIsNoMethodOfTheClientTest {

  @Test
  void theClientsPublicApiHasNoDrain() {
    assertThat(Arrays.stream(Baton.class.getMethods()).map(Method::getName))
        .doesNotContain("drain");
    assertThat(
            Arrays.stream(Baton.class.getFields())
                .filter(f -> Modifier.isStatic(f.getModifiers()))
                .map(java.lang.reflect.Field::getName))
        .noneMatch(n -> n.contains("DRAIN"));
  }

  @Test
  void drainIsOneClassWithStaticMethodsOnly() {
    assertThat(Drain.class.getConstructors()).isEmpty();
    assertThat(
            Arrays.stream(Drain.class.getDeclaredMethods())
                .filter(m -> Modifier.isPublic(m.getModifiers())))
        .allMatch(m -> Modifier.isStatic(m.getModifiers()))
        .extracting(Method::getName)
        .containsOnly("run");
  }
}
