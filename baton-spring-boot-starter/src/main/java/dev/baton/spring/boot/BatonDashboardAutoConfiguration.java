package dev.baton.spring.boot;

import dev.baton.Baton;
import dev.baton.dashboard.Dashboard;
import dev.baton.dashboard.DashboardAuth;
import dev.baton.dashboard.DashboardServer;
import java.net.InetSocketAddress;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * The Baton dashboard on a port of its own ({@code baton.dashboard.port}, default 7070, bound to
 * {@code baton.dashboard.bind}, default 127.0.0.1), when baton-dashboard is on the classpath and
 * {@code baton.dashboard.enabled=true}. It is served from the context's start-up until the context
 * closes, over the application's {@code DataSource} and {@link Baton} bean, with a bearer token
 * ({@code baton.dashboard.token}) or basic auth ({@code baton.dashboard.username} and {@code
 * password}), and read-only with {@code baton.dashboard.read-only=true}.
 */
@AutoConfiguration(after = BatonAutoConfiguration.class)
@ConditionalOnClass(name = "dev.baton.dashboard.Dashboard")
@ConditionalOnBean(Baton.class)
@ConditionalOnProperty(prefix = "baton.dashboard", name = "enabled", havingValue = "true")
public class BatonDashboardAutoConfiguration {
  private static final Logger log = LoggerFactory.getLogger(BatonDashboardAutoConfiguration.class);

  /** The dashboard's server, closed (its port released) when the context closes. */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public DashboardServer batonDashboardServer(
      Baton baton, DataSource dataSource, BatonProperties properties) {
    BatonProperties.Dashboard p = properties.getDashboard();
    if (p.getPort() < 0 || p.getPort() > 65535) {
      throw new InvalidBatonPropertyException(
          "baton.dashboard.port", "a port number 0..65535", p.getPort(), null);
    }
    Dashboard.Builder b = Dashboard.builder(baton, dataSource).auth(auth(p));
    if (p.isReadOnly()) {
      b.readOnly();
    }
    DashboardServer server = b.build().serve(new InetSocketAddress(p.getBind(), p.getPort()));
    log.info("Baton dashboard at {}", server.uri());
    return server;
  }

  private static DashboardAuth auth(BatonProperties.Dashboard p) {
    boolean basic = p.getUsername() != null || p.getPassword() != null;
    if (p.getToken() != null && basic) {
      throw new InvalidBatonPropertyException(
          "baton.dashboard.token",
          "either a token or baton.dashboard.username and password, not both",
          "both",
          null);
    }
    try {
      if (p.getToken() != null) {
        return DashboardAuth.bearerToken(p.getToken());
      }
      if (basic) {
        return DashboardAuth.basic(
            p.getUsername() != null ? p.getUsername() : "",
            p.getPassword() != null ? p.getPassword() : "");
      }
    } catch (IllegalArgumentException e) {
      // The message names the rule; the value is a secret and is not repeated.
      String property = p.getToken() != null ? "baton.dashboard.token" : "baton.dashboard.username";
      throw new InvalidBatonPropertyException(property, e.getMessage(), "(not shown)", e);
    }
    return DashboardAuth.none();
  }
}
