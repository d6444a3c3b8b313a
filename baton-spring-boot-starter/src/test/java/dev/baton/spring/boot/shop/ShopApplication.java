package dev.baton.spring.boot.shop;

import dev.baton.BatchJob;
import dev.baton.BatchJobHandler;
import dev.baton.JobHandler;
import dev.baton.PeriodicJob;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * A small shop for the starter's tests: an order service that enqueues a confirmation in its
 * {@code @Transactional} method, the confirmation's handler as a component, and a handler declared
 * by a {@code @Bean} method (its args type read from the method's return type) that blocks until it
 * is interrupted, a batch handler bean, and a periodic job bean. Without Spring Security's
 * auto-configuration (Boot 3's and Boot 4's names): the security tests' applications bring their
 * own.
 */
@SpringBootApplication(
    excludeName = {
      "org.springframework.boot.autoconfigure.security.servlet.SecurityAutoConfiguration",
      "org.springframework.boot.autoconfigure.security.servlet.UserDetailsServiceAutoConfiguration",
      "org.springframework.boot.autoconfigure.security.servlet.SecurityFilterAutoConfiguration",
      "org.springframework.boot.actuate.autoconfigure.security.servlet"
          + ".ManagementWebSecurityAutoConfiguration",
      "org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration",
      "org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration",
      "org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterAutoConfiguration",
      "org.springframework.boot.security.autoconfigure.web.servlet"
          + ".ServletWebSecurityAutoConfiguration",
      "org.springframework.boot.security.autoconfigure.actuate.web.servlet"
          + ".ManagementWebSecurityAutoConfiguration"
    })
public class ShopApplication {

  /** A periodic job: a {@link Tick} every second, enqueued by the leader. */
  @Bean
  PeriodicJob everySecond() {
    return PeriodicJob.cron("tick", "* * * * * *", new Tick());
  }

  /** A handler of {@link Tick} jobs. */
  @Bean
  JobHandler<Tick> tickHandler(ShopRecord record) {
    return (ctx, args) -> record.ticked();
  }

  /** A batch handler of {@link RestockCheck} jobs, its args type read from the return type. */
  @Bean
  BatchJobHandler<RestockCheck> restockHandler(ShopRecord record) {
    return batch -> {
      for (BatchJob<RestockCheck> job : batch) {
        record.checked(job.args().sku());
      }
    };
  }

  /** A handler of {@link Block} jobs that sleeps until interrupted. */
  @Bean
  JobHandler<Block> blockHandler(ShopRecord record) {
    return (ctx, args) -> {
      record.blockStarted(args.marker());
      Thread.sleep(60_000);
    };
  }
}
