package dev.flushless.jdbc.spring;

import dev.flushless.jdbc.metrics.FlushlessMetrics;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Binds Flushless's driver-wide meters ({@code flushless.*}, see {@link FlushlessMetrics}) to the application's
 * meter registries when Micrometer is on the classpath and a {@code MeterRegistry} bean exists (Spring Boot
 * Actuator): a {@link FlushlessMetrics} bean, which Boot binds like every {@code MeterBinder} bean. An
 * application that defines its own {@link FlushlessMetrics} bean (other tags, say) keeps it alone.
 *
 * <p>Ordered after Boot's metrics auto-configurations (Boot 3: {@code org.springframework.boot.actuate...};
 * Boot 4: {@code org.springframework.boot.micrometer.metrics...}), which create the registries.
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"
        })
@ConditionalOnClass(
        name = {"io.micrometer.core.instrument.MeterRegistry", "io.micrometer.core.instrument.binder.MeterBinder"})
@ConditionalOnBean(type = "io.micrometer.core.instrument.MeterRegistry")
public class FlushlessMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public FlushlessMetrics flushlessMetrics() {
        return new FlushlessMetrics();
    }
}
