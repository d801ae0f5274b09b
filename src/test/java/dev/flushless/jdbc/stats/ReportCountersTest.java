package dev.flushless.jdbc.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.flushless.jdbc.FlushlessConnection;
import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.RoundTripCountingSocketFactory;
import dev.flushless.jdbc.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.Properties;
import java.util.UUID;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The report's statement and round-trip numbers against counters the driver does not keep: the server's
 * ({@code pg_stat_statements}) and the socket's (write-to-read transitions), in every mode, for a workload with
 * coalesced batches, a batch run as sent, single statements, reads and a transaction.
 */
@ExtendWith(PostgresExtension.class)
class ReportCountersTest {

    /** SAVEPOINT and RELEASE SAVEPOINT statements pgjdbc sends for one {@link #work}; ROLLBACK TO is a ROLLBACK. */
    private static final int APPLICATION_SAVEPOINT_COMMANDS = 3;

    @ParameterizedTest
    @ValueSource(strings = {"off", "batch", "transaction"})
    void theReportAgreesWithTheServerAndTheSocket(String mode, TestDatabase db) throws Exception {
        db.assumeStatementStats();
        db.execute("DROP TABLE IF EXISTS counted", "CREATE TABLE counted (id int PRIMARY KEY, v text)");
        String key = "report-" + UUID.randomUUID();
        Properties properties = db.credentials();
        properties.putAll(RoundTripCountingSocketFactory.properties(key));
        RoundTripCountingSocketFactory.Counter socket = RoundTripCountingSocketFactory.counter(key);
        try (Connection c = DriverManager.getConnection(db.flushlessUrl("flushless.mode=" + mode), properties)) {
            work(c, 0); // the connection's first work reads the catalog: not part of what is compared
            FlushlessReport before = c.unwrap(FlushlessConnection.class).report();
            db.resetStatementCounts();
            socket.reset();

            work(c, 1000);

            FlushlessReport after = c.unwrap(FlushlessConnection.class).report();
            long control = db.statementCount("begin%")
                    + db.statementCount("commit%")
                    + db.statementCount("rollback%")
                    + db.statementCount("start transaction%")
                    // the application's SAVEPOINT (2) and RELEASE SAVEPOINT (1) in work(): transaction control. The
                    // server's text cannot tell them from the driver's guard savepoints (PostgreSQL 18 normalises the
                    // name to $1), which are statements the driver sent
                    + APPLICATION_SAVEPOINT_COMMANDS;
            long server = db.statementCount("%") - control; // transaction control is not in statementsSent
            long roundTrips = socket.roundTrips();
            String counts = mode + ": report sent " + (after.statementsSent() - before.statementsSent())
                    + ", round trips "
                    + (after.roundTrips() - before.roundTrips()) + "; server " + server + " statements (and " + control
                    + " transaction control), socket " + roundTrips + " round trips";
            System.out.println("[report counters] " + counts);
            if (Boolean.getBoolean("flushless.debugCounters")) {
                try (Connection admin = db.statisticsConnection();
                        Statement s = admin.createStatement();
                        java.sql.ResultSet rs = s.executeQuery("SELECT calls, query FROM pg_stat_statements s JOIN"
                                + " pg_database d ON d.oid = s.dbid WHERE d.datname = '" + db.name() + "'")) {
                    while (rs.next()) {
                        System.out.println(
                                "    " + rs.getLong(1) + " " + rs.getString(2).replaceAll("\\s+", " "));
                    }
                }
            }
            assertEquals(server, after.statementsSent() - before.statementsSent(), "statements sent, " + counts);
            assertEquals(roundTrips, after.roundTrips() - before.roundTrips(), "round trips, " + counts);
        }
    }

    /**
     * Batches (coalesced, and one that runs as sent), single statements and a read, in autocommit and in
     * transactions ended by {@code commit()}, {@code setAutoCommit(true)} and {@code rollback()}, with savepoints.
     */
    private static void work(Connection c, int base) throws Exception {
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO counted (id, v) VALUES (?, ?)");
                PreparedStatement update = c.prepareStatement("UPDATE counted SET v = ? WHERE id = ?");
                Statement s = c.createStatement()) {
            for (int i = 0; i < 10; i++) {
                insert.setInt(1, base + i);
                insert.setString(2, "a");
                insert.addBatch();
            }
            insert.executeBatch();
            update.setString(1, "b");
            update.setInt(2, base);
            update.addBatch();
            update.executeBatch(); // one row: as sent
            s.executeQuery("SELECT count(*) FROM counted").close();
            c.setAutoCommit(false);
            insert.setInt(1, base + 100);
            insert.setString(2, "t");
            insert.executeUpdate();
            for (int i = 0; i < 5; i++) {
                update.setString(1, "u" + i);
                update.setInt(2, base + i);
                update.addBatch();
            }
            update.executeBatch();
            c.commit();
            c.setAutoCommit(true);
            // a transaction ended by setAutoCommit(true) (pgjdbc sends COMMIT), with a savepoint rolled back to and
            // one released on the way
            c.setAutoCommit(false);
            insert.setInt(1, base + 200);
            insert.setString(2, "s");
            insert.executeUpdate();
            java.sql.Savepoint first = c.setSavepoint();
            insert.setInt(1, base + 201);
            insert.executeUpdate();
            c.rollback(first);
            java.sql.Savepoint second = c.setSavepoint("second");
            insert.setInt(1, base + 202);
            insert.executeUpdate();
            c.releaseSavepoint(second);
            c.setAutoCommit(true);
            // a transaction ended by rollback()
            c.setAutoCommit(false);
            insert.setInt(1, base + 300);
            insert.executeUpdate();
            c.rollback();
            c.setAutoCommit(true);
        }
    }
}
