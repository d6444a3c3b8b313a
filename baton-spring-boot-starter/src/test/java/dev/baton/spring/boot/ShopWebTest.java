package dev.baton.spring.boot;

import dev.baton.spring.boot.shop.ShopApplication;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;

/**
 * A test of the shop application on a real HTTP server with Actuator's health (with details) and
 * metrics endpoints, its methods in {@code @Order}. The context is closed after the class, while
 * the test database is still up (not at JVM exit). A class adds its own properties with
 * {@code @TestPropertySource} and its database with {@link ShopDatabase#register}.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@SpringBootTest(
    classes = ShopApplication.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "management.endpoints.web.exposure.include=health,metrics",
      "management.endpoint.health.show-details=always"
    })
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@DirtiesContext
@interface ShopWebTest {}
