package dev.baton.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.admin.BatonAdmin;
import dev.baton.testing.TestDatabase;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The operator API is a bean on the client's schema, which an application's own {@link BatonAdmin}
 * bean replaces.
 */
class BatonAdminBeanTest {
  private static final TestDatabase DB = TestDatabase.get();

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(BatonAutoConfiguration.class))
          .withBean(DataSource.class, () -> DB.dataSource(2));

  @Test
  void theOperatorApiIsABeanOnTheClientsSchema() {
    String schema = DB.newMigratedSchema();
    runner
        .withPropertyValues("baton.schema=" + schema, "baton.enabled=false")
        .run(
            context -> {
              assertThat(context).hasSingleBean(BatonAdmin.class);
              BatonAdmin admin = context.getBean(BatonAdmin.class);
              assertThat(admin.schema()).isEqualTo(schema);
              assertThat(context.getBean(Baton.class).config().schema()).isEqualTo(schema);
              context.getBean(Baton.class).pauseQueue("reports");
              assertThat(admin.queues()).anyMatch(q -> q.name().equals("reports") && q.paused());
            });
  }

  @Test
  void anApplicationsOwnOperatorApiReplacesIt() {
    String schema = DB.newMigratedSchema();
    BatonAdmin own = new BatonAdmin(DB.dataSource(1), schema);
    runner
        .withPropertyValues("baton.schema=" + schema, "baton.enabled=false")
        .withBean(BatonAdmin.class, () -> own)
        .run(context -> assertThat(context.getBean(BatonAdmin.class)).isSameAs(own));
  }
}
