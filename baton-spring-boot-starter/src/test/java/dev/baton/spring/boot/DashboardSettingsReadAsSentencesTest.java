package dev.baton.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.dashboard.DashboardServer;
import dev.baton.testing.TestDatabase;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.AbstractApplicationContextRunner;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

/**
 * The dashboard's start-up failures say what to do in a sentence (Boot's "Action"), and an empty
 * {@code baton.dashboard.token=} (or username, password) is unset, as an empty {@code
 * baton.dashboard.path=} is.
 */
class DashboardSettingsReadAsSentencesTest {
  private static final TestDatabase DB = TestDatabase.get();
  private static final AutoConfigurations BATON =
      AutoConfigurations.of(BatonAutoConfiguration.class, BatonDashboardAutoConfiguration.class);

  private static <R extends AbstractApplicationContextRunner<R, ?, ?>> R baton(R runner) {
    return runner
        .withConfiguration(BATON)
        .withBean(DataSource.class, DashboardSettingsReadAsSentencesTest::dataSource)
        .withPropertyValues(
            "baton.enabled=false", "baton.dashboard.enabled=true", "baton.dashboard.port=0");
  }

  @Test
  void aTokenBesideThePathSaysWhichToUnset() {
    assertThat(
            action(
                baton(new WebApplicationContextRunner()),
                "baton.dashboard.path=/baton",
                "baton.dashboard.token=a-token-for-the-own-port"))
        .isEqualTo(
            "Unset baton.dashboard.token, and say who may use the dashboard with"
                + " baton.dashboard.role; or unset baton.dashboard.path to serve the dashboard on a"
                + " port of its own with baton.dashboard.token.");
  }

  @Test
  void aPathWithoutAServletServerSaysToUnsetIt() {
    assertThat(action(baton(new ApplicationContextRunner()), "baton.dashboard.path=/baton"))
        .isEqualTo(
            "Unset baton.dashboard.path to serve the dashboard on a port of its own"
                + " (baton.dashboard.port), or run it in a servlet web application.");
  }

  @Test
  void aPathWithoutSpringSecuritySaysWhatToAdd() {
    assertThat(
            action(
                baton(new WebApplicationContextRunner())
                    .withClassLoader(new FilteredClassLoader("org.springframework.security")),
                "baton.dashboard.path=/baton"))
        .isEqualTo(
            "Add spring-boot-starter-security to the application, or define a DashboardAuth"
                + " bean; or unset baton.dashboard.path to serve the dashboard on a port of its"
                + " own.");
  }

  @Test
  void aTokenAndAUserSayToUnsetOne() {
    assertThat(
            action(
                baton(new ApplicationContextRunner()),
                "baton.dashboard.token=a-token-of-sixteen-or-more",
                "baton.dashboard.username=ada",
                "baton.dashboard.password=secret-password"))
        .isEqualTo("Unset either baton.dashboard.token or baton.dashboard.username and password.");
  }

  @Test
  void aValueRuleStillSaysWhatToSetItTo() {
    assertThat(action(baton(new ApplicationContextRunner()), "baton.dashboard.port=70000"))
        .isEqualTo("Set baton.dashboard.port to a port number 0..65535 in the configuration.");
  }

  @Test
  void emptyTokenUsernameAndPasswordAreUnsetOnTheOwnPort() {
    baton(new ApplicationContextRunner())
        .withPropertyValues(
            "baton.dashboard.token=", "baton.dashboard.username=", "baton.dashboard.password=")
        .run(
            context -> {
              assertThat(context).hasNotFailed().hasSingleBean(DashboardServer.class);
              BatonProperties.Dashboard p = context.getBean(BatonProperties.class).getDashboard();
              assertThat(p.getToken()).isNull();
              assertThat(p.getUsername()).isNull();
              assertThat(p.getPassword()).isNull();
            });
  }

  @Test
  void anEmptyTokenBesideThePathIsUnsetAsAnEmptyPathIs() {
    baton(new WebApplicationContextRunner())
        .withPropertyValues("baton.dashboard.path=/baton", "baton.dashboard.token=")
        .run(context -> assertThat(context).hasNotFailed().hasBean("batonDashboardServlet"));
    baton(new ApplicationContextRunner())
        .withPropertyValues("baton.dashboard.path=")
        .run(
            context -> {
              assertThat(context).hasNotFailed().hasSingleBean(DashboardServer.class);
              assertThat(context.getBean(BatonProperties.class).getDashboard().getPath()).isNull();
            });
  }

  private static String action(AbstractApplicationContextRunner<?, ?, ?> runner, String... props) {
    String[] action = new String[1];
    runner
        .withPropertyValues(props)
        .run(
            context -> {
              assertThat(context).hasFailed();
              FailureAnalysis analysis =
                  new BatonFailureAnalyzer().analyze(context.getStartupFailure());
              assertThat(analysis).as("a Baton failure analysis").isNotNull();
              action[0] = analysis.getAction();
            });
    return action[0];
  }

  private static DataSource dataSource() {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(DB.jdbcUrl());
    return ds;
  }
}
