package dev.flushless.jdbc.spring;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Spring Boot 4: adds {@link FlushlessDriverClassNames}, so that a {@code jdbc:flushless:} URL in
 * {@code spring.datasource.url} (or {@code spring.flyway.url}, {@code spring.liquibase.url}, a pool's own URL)
 * is all a Boot application changes. Registered in {@code META-INF/spring.factories} under
 * {@code org.springframework.boot.EnvironmentPostProcessor}, the key Boot 4.0 introduced (Boot 4.2 reads only
 * this one); {@link LegacyFlushlessEnvironmentPostProcessor} serves Boot 2.4 to 3.5.
 */
public final class FlushlessEnvironmentPostProcessor implements EnvironmentPostProcessor, Ordered {

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        FlushlessDriverClassNames.addTo(environment, application);
    }

    /** After the configuration files are loaded (the source computes its answers later anyway). */
    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
