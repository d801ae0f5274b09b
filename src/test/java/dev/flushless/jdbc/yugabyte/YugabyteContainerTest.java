package dev.flushless.jdbc.yugabyte;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The YugabyteDB container tests ({@link YugabyteReleaseContainerTest}) on 2024.1, the reference article's release
 * (PostgreSQL 11 based, no ON CONFLICT batching: {@code flushless.onConflict=auto} takes the anti-join form), and
 * follower reads turned on and off with the read-only state. Image: {@code FLUSHLESS_YUGABYTE_IMAGE} or
 * {@link YugabyteContainer#IMAGE_2024_1}.
 */
class YugabyteContainerTest extends YugabyteReleaseContainerTest {

    @Override
    String image() {
        return YugabyteContainer.image("FLUSHLESS_YUGABYTE_IMAGE", YugabyteContainer.IMAGE_2024_1);
    }

    @Override
    String series() {
        return System.getenv("FLUSHLESS_YUGABYTE_IMAGE") == null ? "2024.1" : null;
    }

    @Test
    void followerReadsFollowTheReadOnlyState() throws Exception {
        try (Connection c = yugabyte().connect("flushless.followerReads=1500")) {
            assertEquals(List.of("off", "off"), settings(c));
            c.setReadOnly(true);
            assertEquals(List.of("on", "on"), settings(c));
            assertEquals("1500", show(c, "yb_follower_read_staleness_ms").replace("ms", ""));
            c.setReadOnly(false);
            assertEquals(List.of("off", "off"), settings(c));
            c.setAutoCommit(false);
            c.setReadOnly(true);
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_class")) {
                assertTrue(rs.next());
            }
            c.commit();
            assertEquals(List.of("on", "on"), settings(c));
            c.commit();
        }
    }

    private static List<String> settings(Connection c) throws SQLException {
        return List.of(show(c, "yb_read_from_followers"), show(c, "default_transaction_read_only"));
    }

    private static String show(Connection c, String name) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW " + name)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
