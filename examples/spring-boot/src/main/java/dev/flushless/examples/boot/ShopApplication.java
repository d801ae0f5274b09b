package dev.flushless.examples.boot;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A small shop on Spring Boot: Spring Data JPA entities with {@code @Version} and sequence ids, a Flyway
 * migration, Actuator, HikariCP. Nothing in the code knows about Flushless; application.properties has
 * {@code jdbc:flushless:postgresql://...} as {@code spring.datasource.url}.
 */
@SpringBootApplication
public class ShopApplication {

    public static void main(String[] args) {
        SpringApplication.run(ShopApplication.class, args);
    }
}
