package dev.flushless.jdbc.batch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A coalesced INSERT inside a transaction checks its row count by its update count and leaves its guard savepoint open
 * ({@link OpenGuards}): every case runs on bare pgjdbc and on Flushless (batch mode, the driver's defaults but for the
 * first-batch rule), into twin tables, and must give the same counts, errors and final rows. The server's statement
 * statistics show which form ran. Nothing here is timed.
 */
@ExtendWith(PostgresExtension.class)
class OpenGuardsTest {

    private static final String CTE = "WITH flushless_ins AS (INSERT INTO og_%";
    private static final String PLAIN = "INSERT INTO og_% SELECT flushless_v.%";

    private TestDatabase db;

    @BeforeEach
    void schema(TestDatabase db) throws SQLException {
        this.db = db;
        db.execute(
                "DROP TABLE IF EXISTS og_bare, og_flushless",
                "CREATE TABLE og_bare (id int PRIMARY KEY, v text, at timestamp)",
                "CREATE TABLE og_flushless (id int PRIMARY KEY, v text, at timestamp)",
                "CREATE OR REPLACE FUNCTION og_skip_odd() RETURNS trigger LANGUAGE plpgsql AS"
                        + " $$ BEGIN IF NEW.id % 2 = 1 THEN RETURN NULL; END IF; RETURN NEW; END $$");
    }

    private Connection open(boolean flushless) throws SQLException {
        Connection c = flushless
                ? DriverManager.getConnection(
                        TestDatabase.withParameters(
                                db.flushlessDefaultsUrl(),
                                "flushless.mode=batch&flushless.coalesceFirstBatch=true&flushless.minBatchRows=2"),
                        db.credentials())
                : db.bare();
        c.setAutoCommit(false);
        return c;
    }

    private static String table(boolean flushless) {
        return flushless ? "og_flushless" : "og_bare";
    }

    /** A batch of ids {@code from} to {@code to - 1}; its counts, as text. */
    private static String batch(Connection c, String table, int from, int to) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " (id, v, at) VALUES (?, ?, ?)")) {
            for (int id = from; id < to; id++) {
                ps.setInt(1, id);
                ps.setString(2, id % 7 == 0 ? null : "v" + id);
                ps.setTimestamp(3, new java.sql.Timestamp(1_700_000_000_000L + id * 1000L));
                ps.addBatch();
            }
            return java.util.Arrays.toString(ps.executeBatch());
        }
    }

    private List<List<String>> rows(boolean flushless) throws SQLException {
        return db.rows("SELECT id, v, at FROM " + table(flushless) + " ORDER BY id");
    }

    private interface Work {
        List<String> run(Connection c, String table) throws SQLException;
    }

    /** Runs {@code work} on both drivers; asserts the same outcomes and final rows; returns Flushless's outcomes. */
    private List<String> same(Work work) throws SQLException {
        List<String> bare;
        List<String> flushless;
        try (Connection c = open(false)) {
            bare = work.run(c, table(false));
        }
        db.resetStatementCounts();
        try (Connection c = open(true)) {
            flushless = work.run(c, table(true));
        }
        assertEquals(bare, flushless);
        assertEquals(rows(false), rows(true));
        return flushless;
    }

    @Test
    void aBatchInATransactionIsAPlainInsertCheckedByItsUpdateCount() throws SQLException {
        same((c, t) -> {
            List<String> out = new ArrayList<>();
            out.add(batch(c, t, 0, 100));
            c.commit();
            c.setAutoCommit(true);
            out.add(batch(c, t, 100, 150)); // autocommit: the count is checked inside the statement
            return out;
        });
        assertEquals(1, db.statementCount(PLAIN));
        assertEquals(1, db.statementCount(CTE));
    }

    @Test
    void aTriggerAddedByAnotherSessionIsUndoneToTheGuardAndRunAsSent() throws SQLException {
        List<String> out = same((c, t) -> {
            List<String> counts = new ArrayList<>();
            counts.add(batch(c, t, 0, 50)); // facts read: no trigger
            c.commit();
            try (Connection other = db.bare(); // another program: the driver is not told
                    Statement s = other.createStatement()) {
                s.execute("CREATE TRIGGER og_skip BEFORE INSERT ON " + t
                        + " FOR EACH ROW EXECUTE FUNCTION og_skip_odd()");
            }
            counts.add(batch(c, t, 100, 120)); // bare: 1, 0, 1, 0, ...
            counts.add(batch(c, t, 200, 210));
            c.commit();
            return counts;
        });
        StringBuilder skipped = new StringBuilder("[");
        for (int id = 100; id < 120; id++) {
            skipped.append(id > 100 ? ", " : "").append(id % 2 == 0 ? 1 : 0);
        }
        assertEquals(skipped + "]", out.get(1), "the trigger skipped the odd ids, counted as bare pgjdbc counts them");
        assertEquals(2, db.statementCount(PLAIN), "the first batch, and the second before it was undone to its guard");
    }

    @Test
    void theApplicationsSavepointsRollBackAroundAnOpenGuard() throws SQLException {
        same((c, t) -> {
            List<String> out = new ArrayList<>();
            batch(c, t, 0, 10);
            Savepoint before = c.setSavepoint("app_before");
            out.add(batch(c, t, 10, 30)); // leaves its guard open, inside app_before
            Savepoint after = c.setSavepoint();
            out.add(batch(c, t, 30, 40));
            c.rollback(after); // the second batch goes, the first stays
            out.add(batch(c, t, 40, 50));
            c.rollback(before); // everything since app_before goes, open guards with it
            out.add(batch(c, t, 50, 60));
            c.releaseSavepoint(before);
            c.commit();
            return out;
        });
    }

    @Test
    void anErrorAfterTheBatchAbortsTheTransactionAsItWould() throws SQLException {
        same((c, t) -> {
            List<String> out = new ArrayList<>();
            out.add(batch(c, t, 0, 20));
            try (Statement s = c.createStatement()) {
                SQLException duplicate =
                        assertThrows(SQLException.class, () -> s.execute("INSERT INTO " + t + " (id) VALUES (3)"));
                out.add(duplicate.getSQLState());
                SQLException aborted = assertThrows(SQLException.class, () -> s.execute("SELECT 1"));
                out.add(aborted.getSQLState());
            }
            try {
                c.commit(); // pgjdbc's COMMIT of a failed transaction: the server rolls it back
                out.add("commit returned");
            } catch (SQLException commit) {
                out.add(commit.getSQLState() + " " + commit.getClass().getName());
            }
            out.add(batch(c, t, 20, 30));
            c.commit();
            return out;
        });
    }

    @Test
    void atMostThirtyTwoGuardsStayOpenInATransaction() throws SQLException {
        int batches = OpenGuards.MAX_PER_TRANSACTION + 4;
        same((c, t) -> {
            List<String> out = new ArrayList<>();
            for (int b = 0; b < batches; b++) {
                out.add(batch(c, t, b * 10, b * 10 + 10));
            }
            c.commit();
            out.add(batch(c, t, 1000, 1010)); // a new transaction opens guards again
            c.commit();
            return out;
        });
        assertEquals(OpenGuards.MAX_PER_TRANSACTION + 1, db.statementCount(PLAIN));
        assertEquals(4, db.statementCount(CTE));
    }

    /**
     * Transactions that begin with a read before their batch (as Hibernate's begin with a sequence fetch or an entity
     * load): each one's guards count from 0, so forty transactions of one batch each all take the plain form.
     */
    @Test
    void eachTransactionCountsItsOwnGuardsWhenAReadOpensIt() throws SQLException {
        int transactions = OpenGuards.MAX_PER_TRANSACTION + 8;
        same((c, t) -> {
            List<String> out = new ArrayList<>();
            for (int x = 0; x < transactions; x++) {
                try (java.sql.Statement s = c.createStatement();
                        java.sql.ResultSet rs = s.executeQuery("SELECT count(*) FROM " + t)) {
                    rs.next();
                    out.add(rs.getString(1));
                }
                out.add(batch(c, t, x * 10, x * 10 + 10));
                if (x % 2 == 0) {
                    c.commit();
                } else {
                    c.rollback();
                }
            }
            return out;
        });
        assertEquals(transactions, db.statementCount(PLAIN));
        assertEquals(0, db.statementCount(CTE));
    }

    @Test
    void aRolledBackTransactionTakesItsOpenGuardsWithIt() throws SQLException {
        List<String> out = same((c, t) -> {
            List<String> counts = new ArrayList<>();
            counts.add(batch(c, t, 0, 10));
            c.rollback();
            counts.add(batch(c, t, 0, 10));
            c.commit();
            return counts;
        });
        assertEquals("[1, 1, 1, 1, 1, 1, 1, 1, 1, 1]", out.get(1));
    }
}
