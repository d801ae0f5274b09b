package dev.flushless.jdbc.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;
import org.hibernate.dialect.DatabaseVersion;
import org.hibernate.dialect.Dialect;
import org.hibernate.dialect.PostgreSQLDialect;
import org.hibernate.dialect.PostgreSQLDriverKind;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Hibernate 6 without {@code hibernate.dialect} and with a {@code jdbc:flushless:} URL resolves the dialect from
 * the connection's metadata, as for pgjdbc: product name "PostgreSQL" (and {@code select version()}, which tells
 * CockroachDB apart), the server's major and minor version, and the driver name "PostgreSQL JDBC Driver" (which
 * selects pgjdbc's own types for inet, interval, struct and jsonb). The URL only matters for guessing a driver class
 * when none is set (Hibernate's {@code Database.matchesUrl}); Flushless's registers itself with DriverManager.
 */
@ExtendWith(PostgresExtension.class)
class HibernateDialectResolutionTest {

    private static Dialect resolve(TestDatabase db, String url) {
        Configuration configuration = new Configuration()
                .setProperty("hibernate.connection.url", url)
                .setProperty("hibernate.connection.pool_size", "1")
                .setProperty("hibernate.hbm2ddl.auto", "none");
        for (String key : new String[] {"user", "password"}) {
            String value = db.credentials().getProperty(key);
            if (value != null) {
                configuration.setProperty(
                        key.equals("user") ? "hibernate.connection.username" : "hibernate.connection.password", value);
            }
        }
        try (SessionFactory sessionFactory = configuration.buildSessionFactory()) {
            return sessionFactory
                    .unwrap(SessionFactoryImplementor.class)
                    .getJdbcServices()
                    .getDialect();
        }
    }

    @Test
    void resolvesPostgreSQLDialectOfTheServersVersion(TestDatabase db) throws Exception {
        int major;
        int minor;
        try (Connection bare = db.bare()) {
            DatabaseMetaData metaData = bare.getMetaData();
            major = metaData.getDatabaseMajorVersion();
            minor = metaData.getDatabaseMinorVersion();
        }
        Dialect viaPgjdbc = resolve(db, db.pgjdbcUrl());

        for (String mode : new String[] {"off", "batch", "transaction"}) {
            Dialect dialect = resolve(db, db.flushlessUrl("flushless.mode=" + mode));
            assertSame(PostgreSQLDialect.class, dialect.getClass(), mode);
            DatabaseVersion version = dialect.getVersion();
            assertEquals(major, version.getDatabaseMajorVersion(), mode);
            assertEquals(minor, version.getDatabaseMinorVersion(), mode);
            assertEquals(PostgreSQLDriverKind.PG_JDBC, ((PostgreSQLDialect) dialect).getDriverKind(), mode);
            // Exactly what Hibernate resolves through bare pgjdbc.
            assertSame(viaPgjdbc.getClass(), dialect.getClass(), mode);
            assertEquals(viaPgjdbc.getVersion().toString(), version.toString(), mode);
            assertEquals(
                    ((PostgreSQLDialect) viaPgjdbc).getDriverKind(), ((PostgreSQLDialect) dialect).getDriverKind());
        }
    }
}
