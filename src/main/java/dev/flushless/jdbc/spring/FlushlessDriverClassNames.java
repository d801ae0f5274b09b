package dev.flushless.jdbc.spring;

import dev.flushless.jdbc.FlushlessDriver;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.PropertySource;

/**
 * A property source that answers Spring Boot's {@code *.driver-class-name} properties with
 * {@code dev.flushless.jdbc.FlushlessDriver} when the matching URL is a {@code jdbc:flushless:} URL and the
 * application named no driver class, or named the delegate's (pgjdbc's {@code org.postgresql.Driver}, the
 * YugabyteDB smart driver's {@code com.yugabyte.Driver}).
 *
 * <p>Why: Boot infers a driver class from the URL ({@code DatabaseDriver.fromJdbcUrl}), which does not know the
 * {@code jdbc:flushless:} prefix: {@code DataSourceProperties} then fails with "Failed to determine a suitable
 * driver class", and Flyway's and Liquibase's own-URL data sources ({@code spring.flyway.url},
 * {@code spring.liquibase.url}) get no driver at all ("Driver has not been set"). An explicit
 * {@code org.postgresql.Driver} makes HikariCP reject the URL. A driver class the application chose that is
 * something else (a proxy driver, say) is left alone.
 *
 * <p>The answer is computed when Boot binds the property, not when the environment is prepared, so URLs from
 * property sources added later (a test's {@code @DynamicPropertySource}) are seen too; the source is put first
 * again when the application context is refreshed (before any bean is bound), so that it also outranks those. The
 * URL and the application's own driver class are read with Boot's {@link Binder} (relaxed names:
 * {@code driverClassName} in YAML, {@code SPRING_DATASOURCE_URL} in the environment, placeholders resolved),
 * without this source.
 *
 * <p>Added first to the environment by {@link FlushlessEnvironmentPostProcessor} (Boot 4) or
 * {@link LegacyFlushlessEnvironmentPostProcessor} (Boot 2.4 to 3.5), registered in
 * {@code META-INF/spring.factories}.
 */
public final class FlushlessDriverClassNames extends PropertySource<Object> {

    /** The name of this property source in the environment. */
    public static final String NAME = "flushlessDriverClassNames";

    static final String FLUSHLESS_DRIVER = FlushlessDriver.class.getName();

    /** Driver classes that accept the URL after Flushless's prefix, never a {@code jdbc:flushless:} URL itself. */
    static final Set<String> DELEGATE_DRIVERS = Set.of("org.postgresql.Driver", "com.yugabyte.Driver");

    /**
     * Boot's JDBC consumers: the URL property, the driver-class property that goes with it, the URL the consumer
     * uses when its own is not set ({@code null}: none), and a property whose presence means Boot gives the
     * consumer no driver class at all ({@code null}: none).
     */
    record Consumer(String urlProperty, String driverProperty, String inheritedUrlProperty, String excludedIf) {}

    static final List<Consumer> CONSUMERS = List.of(
            // DataSourceProperties: DataSourceAutoConfiguration's pool gets determineDriverClassName().
            new Consumer("spring.datasource.url", "spring.datasource.driver-class-name", null, null),
            // The pool beans are bound to their own prefix after Boot built them, which may override both.
            // HikariCP refuses a driver class beside a dataSourceClassName, so none is given then.
            new Consumer(
                    "spring.datasource.hikari.jdbc-url",
                    "spring.datasource.hikari.driver-class-name",
                    "spring.datasource.url",
                    "spring.datasource.hikari.data-source-class-name"),
            new Consumer(
                    "spring.datasource.dbcp2.url",
                    "spring.datasource.dbcp2.driver-class-name",
                    "spring.datasource.url",
                    null),
            new Consumer(
                    "spring.datasource.tomcat.url",
                    "spring.datasource.tomcat.driver-class-name",
                    "spring.datasource.url",
                    null),
            // FlywayProperties, LiquibaseProperties: their own data source when their url is set, else a copy of
            // the application's (their driver-class-name then still applies when their user is set).
            new Consumer("spring.flyway.url", "spring.flyway.driver-class-name", "spring.datasource.url", null),
            new Consumer("spring.liquibase.url", "spring.liquibase.driver-class-name", "spring.datasource.url", null));

    private static final Log LOG = LogFactory.getLog(FlushlessDriverClassNames.class);

    /** Set while this source reads the environment itself, so that it does not answer its own questions. */
    private static final ThreadLocal<Boolean> RESOLVING = new ThreadLocal<>();

    private final ConfigurableEnvironment environment;
    private final Map<String, Consumer> byDriverProperty = new ConcurrentHashMap<>();
    private final Set<String> logged = ConcurrentHashMap.newKeySet();

    FlushlessDriverClassNames(ConfigurableEnvironment environment) {
        // The source object must not be the environment: Boot's property-source iteration descends into it.
        super(NAME, CONSUMERS);
        this.environment = environment;
        for (Consumer consumer : CONSUMERS) {
            byDriverProperty.put(consumer.driverProperty(), consumer);
            byDriverProperty.put(camelCase(consumer.driverProperty()), consumer);
        }
    }

    /**
     * Adds this source first to {@code environment}, once, and has {@code application} (when given) put it first
     * again when its context is refreshed: property sources added after the environment was prepared (a test's
     * {@code @DynamicPropertySource}, a config server's) would otherwise outrank it, and a delegate's driver class
     * named there would stay.
     */
    static void addTo(ConfigurableEnvironment environment, SpringApplication application) {
        MutablePropertySources sources = environment.getPropertySources();
        if (sources.contains(NAME)) {
            return;
        }
        sources.addFirst(new FlushlessDriverClassNames(environment));
        if (application != null) {
            application.addInitializers(new PutFirstOnRefresh());
        }
    }

    /** A named class: Boot reads an initializer's context type from its generic interface (a lambda has none). */
    private static final class PutFirstOnRefresh
            implements ApplicationContextInitializer<ConfigurableApplicationContext> {
        @Override
        public void initialize(ConfigurableApplicationContext context) {
            context.addBeanFactoryPostProcessor(beanFactory -> moveFirst(context.getEnvironment()));
        }
    }

    /** Puts this source (if present) first in {@code environment}. */
    static void moveFirst(ConfigurableEnvironment environment) {
        MutablePropertySources sources = environment.getPropertySources();
        PropertySource<?> source = sources.remove(NAME);
        if (source != null) {
            sources.addFirst(source);
        }
    }

    @Override
    public Object getProperty(String name) {
        Consumer consumer = byDriverProperty.get(name);
        if (consumer == null || RESOLVING.get() != null) {
            return null;
        }
        RESOLVING.set(Boolean.TRUE);
        try {
            return resolve(consumer);
        } catch (RuntimeException e) {
            // Never fail the application's start-up here: Boot reports its own error if the driver is missing.
            LOG.debug("Flushless: could not read " + consumer.urlProperty() + " to choose a driver class", e);
            return null;
        } finally {
            RESOLVING.remove();
        }
    }

    private String resolve(Consumer consumer) {
        Binder binder = Binder.get(environment);
        if (consumer.excludedIf() != null && hasText(read(binder, consumer.excludedIf()))) {
            return null;
        }
        String chosen = read(binder, consumer.driverProperty());
        String ownUrl = read(binder, consumer.urlProperty());
        String url = ownUrl;
        if (!hasText(url) && consumer.inheritedUrlProperty() != null) {
            url = read(binder, consumer.inheritedUrlProperty());
        }
        if (!hasText(url) || !url.trim().startsWith(FlushlessDriver.URL_PREFIX)) {
            return null;
        }
        if (hasText(chosen)) {
            if (!DELEGATE_DRIVERS.contains(chosen.trim())) {
                return null; // FlushlessDriver itself, or a driver class the application chose on purpose
            }
            log(
                    consumer,
                    "replaces " + chosen.trim() + ", which does not accept " + FlushlessDriver.URL_PREFIX + " URLs",
                    true);
            return FLUSHLESS_DRIVER;
        }
        if (!hasText(ownUrl)) {
            // The consumer inherits spring.datasource.url and, unless told otherwise, its driver class too.
            return null;
        }
        log(consumer, "set (none was configured)", false);
        return FLUSHLESS_DRIVER;
    }

    private void log(Consumer consumer, String what, boolean replaced) {
        if (logged.add(consumer.driverProperty())) {
            String message = "Flushless: " + consumer.driverProperty() + "=" + FLUSHLESS_DRIVER + " " + what
                    + " (" + consumer.urlProperty() + " or the URL it inherits starts with "
                    + FlushlessDriver.URL_PREFIX + ")";
            if (replaced) {
                LOG.info(message);
            } else {
                LOG.debug(message);
            }
        }
    }

    private static String read(Binder binder, String name) {
        return binder.bind(name, String.class).orElse(null);
    }

    private static boolean hasText(String value) {
        return value != null && !value.isBlank();
    }

    /** {@code spring.datasource.driver-class-name} as {@code spring.datasource.driverClassName}. */
    private static String camelCase(String property) {
        StringBuilder out = new StringBuilder(property.length());
        boolean upper = false;
        for (char c : property.toCharArray()) {
            if (c == '-') {
                upper = true;
            } else {
                out.append(upper ? Character.toUpperCase(c) : c);
                upper = false;
            }
        }
        return out.toString();
    }
}
