package dev.baton.spring.boot;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.PeriodicJob;
import dev.baton.QueueConfig;
import dev.baton.admin.BatonAdmin;
import dev.baton.migrate.Migrator;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Auto-configuration of Baton on the application's {@code DataSource}: a {@link Baton} bean with
 * the {@code baton.*} properties, every {@code JobHandler} and {@code PeriodicJob} bean, a {@link
 * BatonTemplate} that enqueues in the current Spring transaction, a {@link BatonLifecycle} that
 * starts and stops the workers with the context, and the operator API {@link BatonAdmin} on the
 * client's schema (for an application's own admin endpoints; the health indicator and the dashboard
 * use it). Each bean backs off when the application defines its own.
 *
 * <p>Ordered after the DataSource auto-configuration of Boot 3 and of Boot 4 (which moved it to
 * {@code spring-boot-jdbc}), named by class name so that one build serves both.
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration"
    })
@ConditionalOnClass({Baton.class, DataSource.class})
@ConditionalOnSingleCandidate(DataSource.class)
@EnableConfigurationProperties(BatonProperties.class)
public class BatonAutoConfiguration {
  private static final Logger log = LoggerFactory.getLogger(BatonAutoConfiguration.class);

  /**
   * The client: config from {@code baton.*}, the handler beans, the periodic job beans, then the
   * customizers. Runs the migrations first when {@code baton.migrate=true}.
   */
  @Bean
  @ConditionalOnMissingBean
  public Baton baton(
      DataSource dataSource,
      BatonProperties properties,
      Environment environment,
      ConfigurableListableBeanFactory beanFactory,
      ObjectProvider<PeriodicJob> periodicJobs,
      ObjectProvider<BatonBuilderCustomizer> customizers) {
    HandlerBeans handlers = new HandlerBeans(beanFactory);
    BatonConfig config = new BatonConfigBinder(properties, environment).config(!handlers.isEmpty());
    if (properties.isMigrate()) {
      List<Integer> applied = new Migrator(dataSource, config.schema()).up();
      if (!applied.isEmpty()) {
        log.info("Baton schema \"{}\" migrated: versions {} applied", config.schema(), applied);
      }
    }
    setBacklogCaps(dataSource, config, properties.getBacklogCaps());
    Baton.Builder builder = Baton.builder(dataSource).config(config);
    handlers.registerWith(builder);
    periodicJobs.orderedStream().forEach(builder::periodic);
    customizers.orderedStream().forEach(c -> c.customize(builder));
    return builder.build();
  }

  // baton.backlog-caps, set where the database holds another cap or none. A new cap's set waits
  // until every client checks it (BatonAdmin.CAP_PROPAGATION), so the start-up that first sets it
  // takes that much longer; later start-ups find it set.
  private static void setBacklogCaps(
      DataSource dataSource, BatonConfig config, Map<String, Integer> caps) {
    if (caps.isEmpty()) {
      return;
    }
    for (Map.Entry<String, Integer> e : caps.entrySet()) {
      String property = "baton.backlog-caps." + e.getKey();
      if (!QueueConfig.isValidName(e.getKey())) {
        throw new InvalidBatonPropertyException(
            "baton.backlog-caps",
            "a queue name of 1-64 letters, digits and _ - ., starting with a letter or digit",
            e.getKey(),
            null);
      }
      if (e.getValue() == null || e.getValue() < 1 || e.getValue() > BatonAdmin.MAX_BACKLOG_CAP) {
        throw new InvalidBatonPropertyException(
            property, "1.." + BatonAdmin.MAX_BACKLOG_CAP, e.getValue(), null);
      }
    }
    BatonAdmin admin = new BatonAdmin(dataSource, config);
    Map<String, Integer> current = admin.backlogCaps();
    caps.forEach(
        (queue, cap) -> {
          if (!cap.equals(current.get(queue))) {
            admin.setBacklogCap(queue, cap, "baton.backlog-caps");
          }
        });
  }

  /** Enqueues in the current Spring transaction. */
  @Bean
  @ConditionalOnMissingBean
  public BatonTemplate batonTemplate(ObjectProvider<Baton> baton, DataSource dataSource) {
    return new BatonTemplate(baton::getObject, dataSource);
  }

  /**
   * The operator API on the client's schema and size limits: jobs, queues, nodes, leader, stats.
   * Starts nothing.
   */
  @Bean
  @ConditionalOnMissingBean
  public BatonAdmin batonAdmin(Baton baton, DataSource dataSource) {
    return new BatonAdmin(dataSource, baton.config());
  }

  /** Starts and stops the workers with the context, unless {@code baton.enabled=false}. */
  @Bean
  @ConditionalOnMissingBean
  public BatonLifecycle batonLifecycle(Baton baton, BatonProperties properties) {
    return new BatonLifecycle(baton, properties.isEnabled());
  }
}
