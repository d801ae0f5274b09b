package dev.flushless.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code DatabaseMetaData.getURL()} of a Flushless connection is pgjdbc's: the URL pgjdbc was given, i.e. the
 * application's URL without {@code flushless:} and without the {@code flushless.*} settings, exactly what bare
 * pgjdbc returns for that URL (see docs/semantics.md for why). A password passed in the properties never appears;
 * one written into the URL appears exactly as pgjdbc itself shows it.
 */
@ExtendWith(PostgresExtension.class)
class MetaDataUrlTest {

    private static String url(String base, String extra) {
        return base + (base.contains("?") ? "&" : "?") + extra;
    }

    private static String metaDataUrl(String url, Properties properties) throws Exception {
        try (Connection connection = DriverManager.getConnection(url, properties)) {
            return connection.getMetaData().getURL();
        }
    }

    @Test
    void isTheUrlPgjdbcWasGiven(TestDatabase db) throws Exception {
        Properties withPassword = db.credentials();
        withPassword.setProperty("password", "secret-in-properties");
        withPassword.setProperty("flushless.maxRowsPerStatement", "100");

        String flushless = url(
                db.flushlessUrl(), "flushless.mode=transaction&ApplicationName=url-test&flushless.trustTriggers=true");
        String pgjdbc = url(db.pgjdbcUrl(), "ApplicationName=url-test");
        String seen = metaDataUrl(flushless, withPassword);
        assertEquals(pgjdbc, seen);
        assertEquals(metaDataUrl(pgjdbc, withPassword), seen, "what bare pgjdbc returns");
        assertFalse(seen.contains("secret-in-properties"), seen);
        assertFalse(seen.contains("flushless"), seen);

        // A password in the URL: shown as bare pgjdbc shows it (pgjdbc returns the URL it was given).
        String inUrl = metaDataUrl(url(db.flushlessUrl(), "password=in-url&flushless.mode=batch"), db.credentials());
        assertEquals(metaDataUrl(url(db.pgjdbcUrl(), "password=in-url"), db.credentials()), inUrl);
    }
}
