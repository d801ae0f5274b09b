package dev.flushless.jdbc.spring;

import org.springframework.boot.SpringApplication;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.util.ClassUtils;

/**
 * Spring Boot 2.4 to 3.5: the same as {@link FlushlessEnvironmentPostProcessor}, through the interface those
 * releases know ({@code org.springframework.boot.env.EnvironmentPostProcessor}, registered under that key in
 * {@code META-INF/spring.factories}). Boot 4.0 and 4.1 load both keys, so this one does nothing where Boot 4's
 * interface exists; Boot 4.2 removes the old interface and key.
 */
@SuppressWarnings({"deprecation", "removal"})
public final class LegacyFlushlessEnvironmentPostProcessor
        implements org.springframework.boot.env.EnvironmentPostProcessor, Ordered {

    static final String BOOT_4_INTERFACE = "org.springframework.boot.EnvironmentPostProcessor";

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        if (!ClassUtils.isPresent(BOOT_4_INTERFACE, LegacyFlushlessEnvironmentPostProcessor.class.getClassLoader())) {
            FlushlessDriverClassNames.addTo(environment, application);
        }
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
