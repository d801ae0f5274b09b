package dev.flushless.jdbc.batch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.flushless.jdbc.FlushlessConnection;
import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Catalog facts that exist only on newer servers, read on every major without failing (PostgreSQL 11, the base of
 * YugabyteDB 2.20 and 2024.x, has neither): a unique index with {@code NULLS NOT DISTINCT} (PostgreSQL 15+) and a
 * nondeterministic collation (PostgreSQL 12+, ICU). Where they exist, the rewrites that cannot model them are not
 * applied, and the batch gives bare pgjdbc's answers. On older servers each test is skipped with the reason printed;
 * the same rewrites on plain unique indexes and deterministic collations are covered on every major by the
 * conformance table and the planner tests.
 */
@ExtendWith(PostgresExtension.class)
class NewerServerFeaturesTest {

    private static void assumeServer(TestDatabase db, int versionNum, String feature) throws SQLException {
        int version = db.serverVersionNum();
        assumeTrue(
                version >= versionNum,
                feature + " needs PostgreSQL " + versionNum / 10000 + "+; the server is " + version
                        + ": the rewrite's plain form is tested on every major elsewhere");
    }

    /** An upsert batch whose arbiter index is NULLS NOT DISTINCT: the anti-join form is not applied, answers are bare's. */
    @Test
    void anArbiterIndexWithNullsNotDistinctKeepsTheNativeForm(TestDatabase db) throws SQLException {
        assumeServer(db, 150000, "NULLS NOT DISTINCT");
        String schema = "CREATE TABLE nnd (id serial PRIMARY KEY, k int, v text, UNIQUE NULLS NOT DISTINCT (k))";
        String upsert = "INSERT INTO nnd (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v";
        List<String> bare = run(db, null, schema, upsert);
        for (String mode :
                new String[] {"flushless.mode=batch&flushless.onConflict=antijoin", "flushless.mode=batch"}) {
            List<String> flushless = run(db, mode, schema, upsert);
            assertEquals(bare, flushless, mode);
        }
    }

    /** A keyed UPDATE batch on a column with a nondeterministic collation: equality is not modelled, answers are bare's. */
    @Test
    void aKeyWithANondeterministicCollationRunsAsSent(TestDatabase db) throws SQLException {
        assumeServer(db, 120000, "nondeterministic collations");
        try (Connection c = db.bare();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_collation WHERE collprovider = 'i'")) {
            rs.next();
            assumeTrue(rs.getInt(1) > 0, "the server was built without ICU: no nondeterministic collation to create");
        }
        db.execute(
                "DROP COLLATION IF EXISTS flushless_ci",
                "CREATE COLLATION flushless_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false)");
        String schema = "CREATE TABLE ci (name text COLLATE flushless_ci PRIMARY KEY, v text)";
        String update = "UPDATE ci SET v = ? WHERE name = ?";
        List<String> bare = run(db, null, schema, update);
        List<String> flushless = run(db, "flushless.mode=batch", schema, update);
        assertEquals(bare, flushless);
        assertEquals("[1, 1, 0]", bare.get(0), "'ALPHA' matches 'alpha' under the collation, 'gamma' matches nothing");
    }

    /** Creates the table afresh, runs a 3-row batch of {@code sql} and returns the counts, the rows and the fallbacks. */
    private static List<String> run(TestDatabase db, String settings, String schema, String sql) throws SQLException {
        String table = schema.substring("CREATE TABLE ".length(), schema.indexOf(' ', "CREATE TABLE ".length()));
        db.execute("DROP TABLE IF EXISTS " + table, schema);
        boolean update = sql.startsWith("UPDATE");
        if (update) {
            db.execute("INSERT INTO ci VALUES ('alpha', 'a'), ('beta', 'b')");
        } else {
            db.execute("INSERT INTO nnd (k, v) VALUES (NULL, 'null before')");
        }
        List<String> out = new ArrayList<>();
        String url = settings == null ? db.pgjdbcUrl() : db.flushlessUrl(settings);
        try (Connection c = DriverManager.getConnection(url, db.credentials());
                PreparedStatement ps = c.prepareStatement(sql)) {
            Object[][] rows = update
                    ? new Object[][] {{"x", "ALPHA"}, {"y", "Beta"}, {"z", "gamma"}}
                    : new Object[][] {{null, "null again"}, {1, "one"}, {2, "two"}};
            for (Object[] row : rows) {
                if (update) {
                    ps.setString(1, (String) row[0]);
                    ps.setString(2, (String) row[1]);
                } else {
                    ps.setObject(1, row[0], java.sql.Types.INTEGER);
                    ps.setString(2, (String) row[1]);
                }
                ps.addBatch();
            }
            out.add(java.util.Arrays.toString(ps.executeBatch()));
            if (settings != null && (update || settings.contains("antijoin"))) {
                long ranAsSent = c.unwrap(FlushlessConnection.class).report().fallbacks().values().stream()
                        .mapToLong(Long::longValue)
                        .sum();
                assertEquals(
                        rows.length,
                        ranAsSent,
                        "the batch's rows are counted under a fallback (the anti-join form or"
                                + " the keyed UPDATE not applied): " + settings);
            }
        }
        out.add(db.rows(update ? "SELECT name, v FROM ci ORDER BY name" : "SELECT k, v FROM nnd ORDER BY k NULLS FIRST")
                .toString());
        return out;
    }
}
