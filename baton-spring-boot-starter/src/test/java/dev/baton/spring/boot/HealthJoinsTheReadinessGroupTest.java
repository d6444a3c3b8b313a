package dev.baton.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/**
 * The {@code baton} indicator is a member of the readiness group when the application has one
 * (probes enabled), and makes no readiness group where there is none. Boot 3 and Boot 4 name their
 * auto-configurations and health types differently (this suite runs on both), so they are named
 * here by class name and read by reflection.
 */
class HealthJoinsTheReadinessGroupTest {

  // The Baton bean is only built, never started, so the DataSource is never asked for a connection.
  private final ApplicationContextRunner contexts =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(autoConfigurations()))
          .withBean(DataSource.class, PGSimpleDataSource::new)
          .withPropertyValues("baton.enabled=false", "baton.metrics.enabled=false");

  @Test
  void batonIsInTheReadinessGroupWhenProbesAreOn() {
    contexts
        .withPropertyValues("management.endpoint.health.probes.enabled=true")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(isMember(context, "readiness", "baton")).isTrue();
              assertThat(isMember(context, "readiness", "readinessState")).isTrue();
              assertThat(isMember(context, "liveness", "baton")).isFalse();
            });
  }

  @Test
  void noReadinessGroupIsMadeWhereThereIsNone() {
    // Probes are off by default on Boot 3 and on by default on Boot 4.
    contexts
        .withPropertyValues("management.endpoint.health.probes.enabled=false")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(group(context, "readiness")).isNull();
            });
  }

  private static final String[] HEALTH_CONFIGURATIONS = {
    "org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration",
    "org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration",
    // Boot 3
    "org.springframework.boot.actuate.autoconfigure.health.HealthContributorAutoConfiguration",
    "org.springframework.boot.actuate.autoconfigure.health.HealthEndpointAutoConfiguration",
    "org.springframework.boot.actuate.autoconfigure.availability.AvailabilityProbesAutoConfiguration",
    // Boot 4
    "org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration",
    "org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration",
    "org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration",
    "org.springframework.boot.health.autoconfigure.actuate.endpoint.AvailabilityProbesAutoConfiguration"
  };

  private static final String[] GROUPS_TYPES = {
    "org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups", // Boot 4
    "org.springframework.boot.actuate.health.HealthEndpointGroups" // Boot 3
  };

  private static Class<?>[] autoConfigurations() {
    List<Class<?>> found = new ArrayList<>(List.of(BatonAutoConfiguration.class));
    found.add(BatonActuatorAutoConfiguration.class);
    for (String name : HEALTH_CONFIGURATIONS) {
      Class<?> c = load(name);
      if (c != null) {
        found.add(c);
      }
    }
    assertThat(found).hasSizeGreaterThanOrEqualTo(7);
    return found.toArray(Class<?>[]::new);
  }

  private static Object group(ApplicationContext context, String name) throws Exception {
    for (String type : GROUPS_TYPES) {
      Class<?> c = load(type);
      if (c != null && !context.getBeansOfType(c).isEmpty()) {
        Object groups = context.getBean(c);
        return c.getMethod("get", String.class).invoke(groups, name);
      }
    }
    throw new AssertionError("no HealthEndpointGroups bean");
  }

  private static boolean isMember(ApplicationContext context, String group, String member)
      throws Exception {
    Object g = group(context, group);
    assertThat(g).as("group %s", group).isNotNull();
    Method isMember = g.getClass().getMethod("isMember", String.class);
    isMember.setAccessible(true);
    return (boolean) isMember.invoke(g, member);
  }

  private static Class<?> load(String name) {
    try {
      return Class.forName(name);
    } catch (ClassNotFoundException | LinkageError e) {
      return null;
    }
  }
}
