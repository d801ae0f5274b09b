package dev.flushless.jdbc.testing;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension giving each test class a fresh database of its own on a real PostgreSQL (see
 * {@link TestServer}). Declare a {@link TestDatabase} parameter on a test, lifecycle method or constructor:
 *
 * <pre>{@code
 * @ExtendWith(PostgresExtension.class)
 * class MyTest {
 *     @Test void works(TestDatabase db) throws Exception { try (var c = db.flushless("batch")) { ... } }
 * }
 * }</pre>
 */
public final class PostgresExtension implements ParameterResolver {

    private static final AtomicInteger DATABASES = new AtomicInteger();
    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(PostgresExtension.class);

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == TestDatabase.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> testClass = context.getRequiredTestClass();
        ExtensionContext.Store store = context.getRoot().getStore(NAMESPACE);
        return store.getOrComputeIfAbsent(testClass.getName(), key -> createDatabase(testClass), TestDatabase.class);
    }

    /** Creates a database for one test class; several databases per class come from {@link #createDatabase(String)}. */
    private static TestDatabase createDatabase(Class<?> testClass) {
        return createDatabase(testClass.getSimpleName());
    }

    /** Creates a fresh database named after {@code hint}. */
    public static TestDatabase createDatabase(String hint) {
        TestServer server = TestServer.get();
        String cleanHint = hint.replaceAll("[^A-Za-z0-9]", "_").toLowerCase(Locale.ROOT);
        if (cleanHint.length() > 40) {
            cleanHint = cleanHint.substring(0, 40);
        }
        String name = "fl_" + cleanHint + "_" + DATABASES.incrementAndGet();
        try (Connection c = server.connect(server.adminDatabase);
                Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + name);
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new ParameterResolutionException(
                    "Could not create test database " + name + " on " + server.description + ": " + e.getMessage(), e);
        }
        return new TestDatabase(server, name);
    }
}
