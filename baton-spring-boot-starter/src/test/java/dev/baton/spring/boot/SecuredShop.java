package dev.baton.spring.boot;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * An application with Spring Security and the dashboard at {@code /baton} on its own server: HTTP
 * basic users {@link #ADMIN} (role {@code BATON_ADMIN}) and {@link #CLERK} (role {@code CLERK}).
 * Its chain lets every request to {@code /baton/**} through to the dashboard, authenticated or not,
 * so that each refusal a test sees is the dashboard's own; and leaves CSRF there to the dashboard,
 * which checks its own token (unless {@code secured-shop.spring-csrf-on-dashboard=true}).
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
class SecuredShop {
  static final String ADMIN = "alice";
  static final String CLERK = "bob";
  static final String PASSWORD = "secured-shop-password";

  @Bean
  SecurityFilterChain securityFilterChain(
      HttpSecurity http,
      @Value("${secured-shop.spring-csrf-on-dashboard:false}") boolean springCsrfOnDashboard)
      throws Exception {
    http.authorizeHttpRequests(
            a -> a.requestMatchers("/baton/**").permitAll().anyRequest().authenticated())
        .httpBasic(Customizer.withDefaults());
    if (!springCsrfOnDashboard) {
      http.csrf(c -> c.ignoringRequestMatchers("/baton/**"));
    }
    return http.build();
  }

  @Bean
  UserDetailsService users() {
    return new InMemoryUserDetailsManager(
        User.withUsername(ADMIN).password("{noop}" + PASSWORD).roles("BATON_ADMIN").build(),
        User.withUsername(CLERK).password("{noop}" + PASSWORD).roles("CLERK").build());
  }

  /** The {@code Authorization} header of {@code user}. */
  static String basic(String user) {
    return "Basic "
        + java.util.Base64.getEncoder()
            .encodeToString(
                (user + ":" + PASSWORD).getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }
}
