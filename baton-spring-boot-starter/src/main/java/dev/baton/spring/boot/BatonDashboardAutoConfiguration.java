package dev.baton.spring.boot;

import dev.baton.Baton;
import dev.baton.admin.BatonAdmin;
import dev.baton.dashboard.Dashboard;
import dev.baton.dashboard.DashboardAuth;
import dev.baton.dashboard.DashboardServer;
import dev.baton.dashboard.DashboardServlet;
import java.net.InetSocketAddress;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.NoneNestedConditions;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ResourceLoader;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

/**
 * The Baton dashboard, when baton-dashboard is on the classpath and {@code
 * baton.dashboard.enabled=true}, over the application's {@code DataSource} and {@link Baton} bean,
 * read-only with {@code baton.dashboard.read-only=true}. Either:
 *
 * <ul>
 *   <li>on a port of its own ({@code baton.dashboard.port}, default 7070, bound to {@code
 *       baton.dashboard.bind}, default 127.0.0.1) from the context's start-up until it closes, with
 *       a bearer token ({@code baton.dashboard.token}) or basic auth ({@code
 *       baton.dashboard.username} and {@code password}); without either, a bind beyond loopback
 *       fails start-up unless {@code baton.dashboard.allow-anonymous=true}; or
 *   <li>with {@code baton.dashboard.path} set, as a servlet on the application's own server at that
 *       path, behind the application's security (Spring Security's filter chain applies to it as to
 *       any URL): the dashboard wants an authenticated user in {@code baton.dashboard.role}.
 * </ul>
 *
 * <p>A {@link DashboardAuth} bean of the application replaces the property-based auth in both.
 */
@AutoConfiguration(after = BatonAutoConfiguration.class)
@ConditionalOnClass(name = "dev.baton.dashboard.Dashboard")
@ConditionalOnBean(Baton.class)
@ConditionalOnProperty(prefix = "baton.dashboard", name = "enabled", havingValue = "true")
public class BatonDashboardAutoConfiguration {
  private static final Logger log = LoggerFactory.getLogger(BatonDashboardAutoConfiguration.class);

  static final String PATH = "baton.dashboard.path";

  private static final Pattern VALID_PATH = Pattern.compile("(/[A-Za-z0-9._~-]+)+");

  private static final String SPRING_SECURITY =
      "org.springframework.security.web.SecurityFilterChain";

  /** On a port of its own: {@code baton.dashboard.path} is not set. */
  @Configuration(proxyBeanMethods = false)
  @Conditional(NoPath.class)
  static class OwnPort {

    /** The dashboard's server, closed (its port released) when the context closes. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    DashboardServer batonDashboardServer(
        Baton baton,
        ObjectProvider<BatonAdmin> admin,
        DataSource dataSource,
        BatonProperties properties,
        ObjectProvider<DashboardAuth> appAuth) {
      BatonProperties.Dashboard p = properties.getDashboard();
      if (p.getPort() < 0 || p.getPort() > 65535) {
        throw new InvalidBatonPropertyException(
            "baton.dashboard.port", "a port number 0..65535", p.getPort(), null);
      }
      DashboardAuth auth = appAuth.getIfAvailable();
      if (auth == null) {
        auth = ownPortAuth(p);
      }
      InetSocketAddress address = new InetSocketAddress(p.getBind(), p.getPort());
      boolean loopback = address.getAddress() != null && address.getAddress().isLoopbackAddress();
      if (auth == DashboardAuth.none() && !loopback && !p.isAllowAnonymous()) {
        throw new InvalidBatonPropertyException(
            "baton.dashboard.bind",
            "a loopback address such as 127.0.0.1 while the dashboard has no authentication (anyone"
                + " who reaches it could act on jobs); set baton.dashboard.token, or"
                + " baton.dashboard.username and password, or a DashboardAuth bean; or set"
                + " baton.dashboard.allow-anonymous=true to serve it to anyone anyway",
            p.getBind(),
            null);
      }
      DashboardServer server = dashboard(baton, admin, dataSource, p, auth).serve(address);
      log.info("Baton dashboard at {}", server.uri());
      return server;
    }
  }

  /** On the application's own servlet server at {@code baton.dashboard.path}. */
  @Configuration(proxyBeanMethods = false)
  @Conditional(OnPath.class)
  @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
  static class AppPort {

    /** The dashboard's servlet, mapped to the path and everything below it. */
    @Bean
    @ConditionalOnMissingBean(name = "batonDashboardServlet")
    ServletRegistrationBean<DashboardServlet> batonDashboardServlet(
        Baton baton,
        ObjectProvider<BatonAdmin> admin,
        DataSource dataSource,
        BatonProperties properties,
        ObjectProvider<DashboardAuth> appAuth,
        ResourceLoader resourceLoader) {
      BatonProperties.Dashboard p = properties.getDashboard();
      String path = validPath(p.getPath());
      DashboardAuth auth = appAuth.getIfAvailable();
      if (auth == null) {
        auth = appPortAuth(p, resourceLoader.getClassLoader());
      }
      ServletRegistrationBean<DashboardServlet> servlet =
          new ServletRegistrationBean<>(
              new DashboardServlet(dashboard(baton, admin, dataSource, p, auth)), path + "/*");
      servlet.setName("batonDashboard");
      log.info("Baton dashboard at {}/ on the application's server", path);
      return servlet;
    }
  }

  /** A path was set, but there is no servlet server to serve it on. */
  @Configuration(proxyBeanMethods = false)
  @Conditional({OnPath.class, NotServletWebApplication.class})
  static class PathWithoutServletServer {
    @Bean
    Object batonDashboardPathRefused(BatonProperties properties) {
      throw new InvalidBatonPropertyException(
          PATH,
          "a servlet web application to serve the dashboard on (this one is not); or unset it to"
              + " serve the dashboard on baton.dashboard.port",
          properties.getDashboard().getPath(),
          "Unset "
              + PATH
              + " to serve the dashboard on a port of its own (baton.dashboard.port), or run it"
              + " in a servlet web application.",
          null);
    }
  }

  // The operator API bean, or one on the client's schema when the application defines its own
  // Baton bean without it. A queue paused on the dashboard records the client's node id as who
  // paused it.
  private static Dashboard dashboard(
      Baton baton,
      ObjectProvider<BatonAdmin> admin,
      DataSource dataSource,
      BatonProperties.Dashboard p,
      DashboardAuth auth) {
    Dashboard.Builder b =
        Dashboard.builder(admin.getIfAvailable(() -> new BatonAdmin(dataSource, baton.config())))
            .pausedBy(baton.nodeId())
            .auth(auth);
    if (p.isReadOnly()) {
      b.readOnly();
    }
    if (p.isAllowAnonymous()) {
      b.allowAnonymous();
    }
    try {
      b.allowedOrigins(p.getAllowedOrigins());
    } catch (IllegalArgumentException notAnOrigin) {
      throw new InvalidBatonPropertyException(
          "baton.dashboard.allowed-origins",
          "origins such as https://ops.example.com: a scheme (http or https), a host and an"
              + " optional port, without a path",
          p.getAllowedOrigins(),
          null);
    }
    return b.build();
  }

  static String validPath(String path) {
    if (path == null || !VALID_PATH.matcher(path).matches()) {
      throw new InvalidBatonPropertyException(
          PATH,
          "a path such as /baton: one or more segments, each a / and then letters, digits or"
              + " . _ ~ -, without a trailing /",
          path,
          null);
    }
    return path;
  }

  /**
   * The application's security authenticates; the dashboard trusts its principal, in the role when
   * one is set. Without Spring Security nothing would set a principal and every request would be
   * refused, so that fails start-up instead.
   */
  private static DashboardAuth appPortAuth(BatonProperties.Dashboard p, ClassLoader classLoader) {
    for (String[] own :
        new String[][] {
          {"baton.dashboard.token", p.getToken()},
          {"baton.dashboard.tokens", p.getTokens().isEmpty() ? null : "set"},
          {"baton.dashboard.username", p.getUsername()},
          {"baton.dashboard.password", p.getPassword()}
        }) {
      if (own[1] != null) {
        throw new InvalidBatonPropertyException(
            own[0],
            "unset when "
                + PATH
                + " is set: on the application's server its own security (Spring Security)"
                + " authenticates, and baton.dashboard.role says who may use the dashboard",
            "(not shown)",
            "Unset "
                + own[0]
                + ", and say who may use the dashboard with baton.dashboard.role; or unset "
                + PATH
                + " to serve the dashboard on a port of its own with "
                + own[0]
                + ".",
            null);
      }
    }
    // The application's class loader, as its own auto-configuration sees it.
    if (!ClassUtils.isPresent(SPRING_SECURITY, classLoader)) {
      throw new InvalidBatonPropertyException(
          PATH,
          "Spring Security (spring-boot-starter-security) on the classpath to authenticate the"
              + " dashboard's users, or a DashboardAuth bean",
          p.getPath(),
          "Add spring-boot-starter-security to the application, or define a DashboardAuth bean;"
              + " or unset "
              + PATH
              + " to serve the dashboard on a port of its own.",
          null);
    }
    String role = p.getRole();
    if (role == null || role.isBlank()) {
      return DashboardAuth.principal();
    }
    if (!role.strip().equals(role) || role.startsWith("ROLE_")) {
      throw new InvalidBatonPropertyException(
          "baton.dashboard.role",
          "a role name without the ROLE_ prefix and without surrounding spaces (e.g. BATON_ADMIN),"
              + " or empty for any authenticated user",
          role,
          null);
    }
    return DashboardAuth.principalInRole(role);
  }

  private static DashboardAuth ownPortAuth(BatonProperties.Dashboard p) {
    boolean basic = p.getUsername() != null || p.getPassword() != null;
    boolean named = !p.getTokens().isEmpty();
    if (named && (p.getToken() != null || basic)) {
      throw new InvalidBatonPropertyException(
          "baton.dashboard.tokens",
          "named tokens alone, without baton.dashboard.token, username or password",
          "both",
          "Unset either baton.dashboard.tokens or baton.dashboard.token, username and password.",
          null);
    }
    if (named) {
      try {
        return DashboardAuth.bearerTokens(p.getTokens());
      } catch (IllegalArgumentException e) {
        // The message names the token's name and the rule, never the token.
        throw new InvalidBatonPropertyException(
            "baton.dashboard.tokens",
            "names of 1 to 64 letters, digits, '.', '_', '-' or '@' and tokens of at least 16"
                + " characters, no two alike ("
                + e.getMessage()
                + ")",
            "(not shown)",
            null);
      }
    }
    if (p.getToken() != null && basic) {
      throw new InvalidBatonPropertyException(
          "baton.dashboard.token",
          "either a token or baton.dashboard.username and password, not both",
          "both",
          "Unset either baton.dashboard.token or baton.dashboard.username and password.",
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

  private static boolean hasPath(ConditionContext context) {
    return StringUtils.hasText(context.getEnvironment().getProperty(PATH));
  }

  /** {@code baton.dashboard.path} is set. */
  static class OnPath extends SpringBootCondition {
    @Override
    public ConditionOutcome getMatchOutcome(
        ConditionContext context, AnnotatedTypeMetadata metadata) {
      return hasPath(context)
          ? ConditionOutcome.match(PATH + " is set")
          : ConditionOutcome.noMatch(PATH + " is not set");
    }
  }

  /** {@code baton.dashboard.path} is not set. */
  static class NoPath extends SpringBootCondition {
    @Override
    public ConditionOutcome getMatchOutcome(
        ConditionContext context, AnnotatedTypeMetadata metadata) {
      return hasPath(context)
          ? ConditionOutcome.noMatch(PATH + " is set")
          : ConditionOutcome.match(PATH + " is not set");
    }
  }

  /** The application is not a servlet web application. */
  static class NotServletWebApplication extends NoneNestedConditions {
    NotServletWebApplication() {
      super(ConfigurationPhase.PARSE_CONFIGURATION);
    }

    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    static class Servlet {}
  }
}
