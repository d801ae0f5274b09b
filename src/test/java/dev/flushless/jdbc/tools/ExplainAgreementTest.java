package dev.flushless.jdbc.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.flushless.jdbc.FlushlessConnection;
import dev.flushless.jdbc.analysis.SqlAnalyzer;
import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.batch.Bind;
import dev.flushless.jdbc.session.SessionFacts;
import dev.flushless.jdbc.stats.FlushlessReport;
import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.RoundTripCountingSocketFactory;
import dev.flushless.jdbc.testing.TestDatabase;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code explain} predicts what the driver does: each script is explained (offline where its assumptions hold, and
 * with {@code --url} against the same database), then run through the real driver ({@code jdbc:flushless:} with
 * {@code flushless.mode=transaction}, autocommit off, each statement executed once as explain says: with parameters a
 * PreparedStatement with the values explain binds, without a Statement; BEGIN/COMMIT/ROLLBACK lines as the calls;
 * then {@code commit()}), and the predicted round trips and statements sent must equal what the driver's report, the
 * socket (write-to-read transitions) and the server ({@code pg_stat_statements}) count. The driver's catalog lookups,
 * which explain does not predict (it reads the catalog itself), are taken out of the socket's and the server's counts.
 */
@ExtendWith(PostgresExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExplainAgreementTest {

    private static final SqlAnalyzer ANALYZER = new SqlAnalyzer(64);
    /** The driver's catalog lookup query (TableCatalog), one round trip each. */
    private static final String LOOKUP = "%to_regclass(%";
    /**
     * Inside an open transaction a lookup is bracketed by SAVEPOINT, ROLLBACK TO SAVEPOINT and RELEASE SAVEPOINT in its
     * round trip (CatalogQuery); nothing else in these scripts rolls back to a savepoint (a coalesced run's guard does
     * only when it fails), and newer servers show every savepoint name as $1, so the brackets are counted by it.
     */
    private static final String BRACKET = "rollback to %";

    private TestDatabase db;

    @BeforeAll
    void schema(TestDatabase db) throws SQLException {
        this.db = db;
        db.execute(
                "DROP TABLE IF EXISTS t, u, s, trig, b, b2",
                "CREATE TABLE t (id text, v text)",
                "CREATE TABLE u (id text, v text)",
                "CREATE TABLE s (id serial PRIMARY KEY, v text)",
                "CREATE TABLE trig (id text, v text)",
                "CREATE TABLE b (id text, v text)",
                "CREATE TABLE b2 (id text, v text)",
                "CREATE OR REPLACE FUNCTION trig_touch() RETURNS trigger LANGUAGE plpgsql AS"
                        + " $$ BEGIN NEW.v := NEW.v || '!'; RETURN NEW; END $$",
                "CREATE TRIGGER trig_touch BEFORE INSERT ON trig FOR EACH ROW EXECUTE PROCEDURE trig_touch()");
    }

    /** A script, whether explain's offline assumptions hold for it, and flushless.* settings for its URLs. */
    private record Script(String name, String sql, boolean offline, String settings) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static String repeat(String statement, int times) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < times; i++) {
            sb.append(statement.replace("#", Integer.toString(i))).append(";\n");
        }
        return sb.toString();
    }

    static Stream<Arguments> transactionScripts() {
        String insertT = "INSERT INTO t (id, v) VALUES (?, ?);\n";
        return Stream.of(
                        new Script(
                                "INSERT batches into two tables, fused commit",
                                insertT + "INSERT INTO u (id, v) VALUES (?, ?);\n"
                                        + "INSERT INTO t (id, v) VALUES ('lit', 'x');\n" + insertT + "COMMIT;\n",
                                true,
                                null),
                        new Script(
                                "10,000 buffered INSERTs then COMMIT",
                                repeat("INSERT INTO t (id, v) VALUES (?, ?)", 10_000) + "COMMIT;\n",
                                true,
                                null),
                        new Script(
                                "10,001 buffered INSERTs: the size bound sends 10,000 first",
                                repeat("INSERT INTO t (id, v) VALUES (?, ?)", 10_001) + "COMMIT;\n",
                                true,
                                null),
                        new Script(
                                "450 literal INSERTs: one statement each, several executions",
                                repeat("INSERT INTO t (id, v) VALUES ('lit#', 'x')", 450) + "COMMIT;\n",
                                true,
                                null),
                        new Script(
                                "INSERT then SELECT of another table",
                                insertT + "SELECT v FROM u WHERE id = ?;\nCOMMIT;\n",
                                true,
                                null),
                        new Script(
                                "INSERT then SELECT of the same table (flush)",
                                insertT + "SELECT count(*) FROM t WHERE v = ?;\nCOMMIT;\n",
                                true,
                                null),
                        new Script(
                                "INSERT then UPDATE (rides along)",
                                insertT + "UPDATE u SET v = ? WHERE id = ?;\nCOMMIT;\n",
                                true,
                                null),
                        new Script(
                                "INSERT then INSERT ... RETURNING",
                                insertT + "INSERT INTO t (id, v) VALUES (?, ?) RETURNING id;\n" + insertT + "COMMIT;\n",
                                true,
                                null),
                        new Script(
                                "DDL in the middle",
                                insertT + "CREATE INDEX t_v_idx ON t (v);\n" + insertT + "COMMIT;\n",
                                true,
                                null),
                        new Script(
                                "two transactions between BEGIN and COMMIT lines",
                                "BEGIN;\n" + insertT + "SELECT v FROM t WHERE id = ?;\nCOMMIT;\nBEGIN;\n"
                                        + "INSERT INTO u (id, v) VALUES (?, ?);\nCOMMIT;\n",
                                true,
                                null),
                        new Script(
                                "a rollback after INSERTs into plain tables",
                                insertT + insertT + "ROLLBACK;\n",
                                true,
                                null),
                        new Script(
                                "rollback with a serial table (ids drawn first), a sequence call",
                                "INSERT INTO s (v) VALUES (?);\nSELECT currval('s_id_seq');\nINSERT INTO s (v) VALUES (?);\n"
                                        + "ROLLBACK;\n" + insertT + "COMMIT;\n",
                                false,
                                null),
                        new Script(
                                "INSERT into a table with a trigger (runs as sent, rides along)",
                                insertT
                                        + "INSERT INTO trig (id, v) VALUES (?, ?);\nINSERT INTO trig (id, v) VALUES (?, ?);\n"
                                        + "COMMIT;\n" + "INSERT INTO trig (id, v) VALUES (?, ?);\n" + insertT
                                        + "COMMIT;\n",
                                false,
                                null),
                        new Script(
                                "flushless.maxBufferedRows=2 from a jdbc:flushless: URL",
                                repeat("INSERT INTO t (id, v) VALUES (?, ?)", 5) + "COMMIT;\n",
                                false,
                                "flushless.maxBufferedRows=2"))
                .map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("transactionScripts")
    void transactionModeRoundTripsAndStatementsAreWhatTheDriverSends(Script script) throws Exception {
        List<Prediction> predictions = new ArrayList<>();
        if (script.offline()) {
            predictions.add(explain("offline", script.sql(), "--mode", "transaction", "--rows", "2", "-"));
        }
        predictions.add(explain(
                "--url", script.sql(), "--mode", "transaction", "--rows", "2", "--url", url(script.settings()), "-"));

        Measured measured = runTransaction(script);
        System.out.println("[explain agreement] " + script.name() + ": " + measured);
        for (Prediction prediction : predictions) {
            Explain.Tallies.Transaction tx = prediction.tallies().transaction();
            assertNotNull(tx, prediction.output());
            String context = script.name() + ", explain " + prediction.how() + " predicted " + tx + ", the driver: "
                    + measured + "\n" + prediction.summary();
            assertEquals(tx.roundTrips(), measured.reportTrips(), "round trips (report), " + context);
            assertEquals(
                    tx.statementsSent() - tx.transactionControl(),
                    measured.reportSent(),
                    "statements sent (report), " + context);
            if (measured.serverSent() >= 0) {
                assertEquals(
                        tx.roundTrips(),
                        measured.socketTrips() - measured.catalogLookups(),
                        "round trips (socket, without catalog lookups), " + context);
                assertEquals(
                        tx.statementsSent() - tx.transactionControl(),
                        measured.serverSent(),
                        "statements sent (server, without catalog lookups and transaction control), " + context);
                assertEquals(tx.transactionControl(), measured.serverControl(), "COMMIT/ROLLBACK (server), " + context);
                // the form: a buffered INSERT's rows go as unnest arrays (pgjdbc's session facts) where the driver does
                assertEquals(
                        prediction.transactionSection().contains("unnest("),
                        measured.unnestStatements() > 0,
                        "unnest form of the flushed INSERTs, " + context);
            }
        }
    }

    static Stream<Arguments> batchScripts() {
        String mixed = "INSERT INTO b (id, v) VALUES (?, ?);\n"
                + "UPDATE b SET v = ? WHERE id = ?;\n"
                + "DELETE FROM b WHERE id = ?;\n"
                + "SELECT count(*) FROM b;\n"
                + "INSERT INTO b (id, v) VALUES ('p1', 'x');\n"
                + "INSERT INTO b2 (id, v) VALUES ('p2', 'y');\n"
                + "UPDATE b SET v = 'z' WHERE id = 'p1';\n"
                + "SELECT v FROM b2 WHERE id = ?;\n"
                + "INSERT INTO b (id, v) VALUES ('p3', 'x');\n"
                + "INSERT INTO b (id, v) VALUES (?, ?) RETURNING id;\n"
                + "UPDATE b SET v = v || ? WHERE id = ? AND v = ?;\n";
        return Stream.of(
                Arguments.of(new Script("batches of 50 rows and Statement batches", mixed, true, null), 50),
                Arguments.of(new Script("batches of one row", mixed, true, null), 1),
                Arguments.of(
                        new Script(
                                "batches of 300 rows into a trigger table and a serial table",
                                "INSERT INTO trig (id, v) VALUES (?, ?);\nINSERT INTO s (v) VALUES (?);\n"
                                        + "INSERT INTO trig (id, v) VALUES ('p', 'q');\nINSERT INTO b (id, v) VALUES ('p', 'q');\n",
                                false,
                                null),
                        300));
    }

    @ParameterizedTest(name = "{0}, rows {1}")
    @MethodSource("batchScripts")
    void batchModeStatementsAreWhatTheDriverSends(Script script, int rows) throws Exception {
        List<Prediction> predictions = new ArrayList<>();
        if (script.offline()) {
            predictions.add(explain("offline", script.sql(), "--rows", Integer.toString(rows), "-"));
        }
        predictions.add(explain("--url", script.sql(), "--rows", Integer.toString(rows), "--url", url(null), "-"));

        Measured measured = runBatches(script, rows);
        System.out.println("[explain agreement] " + script.name() + ", rows " + rows + ": " + measured);
        for (Prediction prediction : predictions) {
            Explain.Tallies tallies = prediction.tallies();
            String context = script.name() + ", explain " + prediction.how() + " predicted " + tallies
                    + ", the driver: " + measured + "\n" + prediction.summary();
            assertEquals(tallies.issued(), measured.reportIssued(), "statements issued (report), " + context);
            assertEquals(tallies.sent(), measured.reportSent(), "statements sent (report), " + context);
            if (measured.serverSent() >= 0) {
                assertEquals(tallies.sent(), measured.serverSent(), "statements sent (server), " + context);
            }
        }
    }

    /** explain plans with the session facts a connection with pgjdbc's defaults has. */
    @Test
    void offlineSessionFactsAreThoseOfADefaultPgjdbcConnection() throws SQLException {
        try (Connection c = db.bare()) {
            assertEquals(SessionFacts.of(c), SessionFacts.PGJDBC_DEFAULTS);
        }
    }

    // ---- explain ----

    /** One explain run: how it was run, its tallies and its output. */
    private record Prediction(String how, Explain.Tallies tallies, String output) {
        /** The transaction section of the output. */
        String transactionSection() {
            return output.substring(Math.max(0, output.indexOf("== flushless.mode=transaction")));
        }

        /** The output's last part (the summaries), for failure messages. */
        String summary() {
            int start = output.lastIndexOf("== Summary");
            return start < 0 ? output : output.substring(Math.max(0, output.lastIndexOf("== Summary", start - 1)));
        }
    }

    /** {@code args} with the settings of the driver URLs it is compared with ({@link ExplainTest#pinned}). */
    private static String[] pinnedArgs(String[] args) {
        String[] withCommand = new String[args.length + 1];
        withCommand[0] = "explain";
        System.arraycopy(args, 0, withCommand, 1, args.length);
        String[] pinned = ExplainTest.pinned(withCommand);
        return java.util.Arrays.copyOfRange(pinned, 1, pinned.length);
    }

    private static Prediction explain(String how, String script, String... args) throws Explain.UsageException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Explain.Tallies tallies = Explain.execute(
                pinnedArgs(args),
                new ByteArrayInputStream(script.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8));
        return new Prediction(how, tallies, out.toString(StandardCharsets.UTF_8));
    }

    /** The test database's URL with its credentials in the query string (explain --url takes a URL only). */
    private String url(String settings) {
        StringBuilder url = new StringBuilder(settings == null ? db.pgjdbcUrl() : db.flushlessUrl(settings));
        Properties credentials = db.credentials();
        for (String name : credentials.stringPropertyNames()) {
            url.append(url.indexOf("?") < 0 ? '?' : '&')
                    .append(URLEncoder.encode(name, StandardCharsets.UTF_8))
                    .append('=')
                    .append(URLEncoder.encode(credentials.getProperty(name), StandardCharsets.UTF_8));
        }
        return url.toString();
    }

    // ---- the driver ----

    /**
     * What the driver did: the report's statements issued, sent and round trips; the socket's round trips; the
     * server's statements (transaction control and catalog lookups left out; -1 without pg_stat_statements), its
     * COMMIT/ROLLBACK statements, the driver's catalog lookups and its statements that unnest arrays.
     */
    private record Measured(
            long reportIssued,
            long reportSent,
            long reportTrips,
            long socketTrips,
            long serverSent,
            long serverControl,
            long catalogLookups,
            long unnestStatements) {}

    /** A counting Flushless connection with {@code settings}; runs {@code work} and measures it. */
    private Measured measure(String settings, Work work) throws Exception {
        String key = "explain-agreement-" + UUID.randomUUID();
        Properties properties = db.credentials();
        properties.putAll(RoundTripCountingSocketFactory.properties(key));
        RoundTripCountingSocketFactory.Counter socket = RoundTripCountingSocketFactory.counter(key);
        try (Connection c = DriverManager.getConnection(db.flushlessUrl(settings), properties)) {
            FlushlessReport before = c.unwrap(FlushlessConnection.class).report();
            boolean stats = db.hasStatementStats();
            if (stats) {
                db.resetStatementCounts();
            }
            socket.reset();
            work.run(c);
            long trips = socket.roundTrips();
            if (stats && Boolean.getBoolean("flushless.debugCounters")) {
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
            FlushlessReport after = c.unwrap(FlushlessConnection.class).report();
            long serverSent = -1;
            long control = -1;
            long lookups = -1;
            long unnest = -1;
            if (stats) {
                unnest = db.statementCount(
                        "with flushless_s%unnest(%"); // flushes, not the catalog lookup (which unnests too)
                lookups = db.statementCount(LOOKUP);
                long brackets = db.statementCount(BRACKET);
                long catalog = lookups + 3 * brackets;
                control = db.statementCount("commit%") + db.statementCount("rollback%") - brackets;
                long begins = db.statementCount("begin%") + db.statementCount("start transaction%");
                serverSent = db.statementCount("%") - catalog - control - begins;
            }
            return new Measured(
                    after.statementsIssued() - before.statementsIssued(),
                    after.statementsSent() - before.statementsSent(),
                    after.roundTrips() - before.roundTrips(),
                    trips,
                    serverSent,
                    control,
                    lookups,
                    unnest);
        }
    }

    @FunctionalInterface
    private interface Work {
        void run(Connection c) throws Exception;
    }

    /**
     * Runs {@code script} as explain's transaction section says the application does: autocommit off, each statement
     * once, BEGIN/COMMIT/ROLLBACK lines as the calls, then {@code commit()}.
     */
    private Measured runTransaction(Script script) throws Exception {
        String settings = "flushless.mode=transaction" + (script.settings() == null ? "" : "&" + script.settings());
        return measure(settings, c -> {
            c.setAutoCommit(false);
            int number = 0;
            for (String sql : SqlAnalyzer.splitStatements(script.sql())) {
                number++;
                switch (Explain.boundary(sql)) {
                    case BEGIN:
                        c.setAutoCommit(false);
                        break;
                    case COMMIT:
                        c.commit();
                        break;
                    case ROLLBACK:
                        c.rollback();
                        break;
                    default:
                        executeOnce(c, sql, Explain.transactionRow(number, ANALYZER.describe(sql)));
                }
            }
            c.commit();
        });
    }

    /** One execution: a Statement without parameters, else a PreparedStatement with {@code row}. */
    private static void executeOnce(Connection c, String sql, Bind[] row) throws SQLException {
        if (row == null) {
            try (Statement s = c.createStatement()) {
                if (s.execute(sql)) {
                    s.getResultSet().close();
                }
            }
            return;
        }
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int p = 0; p < row.length; p++) {
                row[p].applyTo(ps, p + 1);
            }
            if (ps.execute()) {
                ps.getResultSet().close();
            }
        }
    }

    /**
     * Runs {@code script} as explain's batch sections say, in autocommit ({@code flushless.mode=batch}): each write
     * with parameters as a PreparedStatement batch of {@code rows} rows (explain's values), each run of parameterless
     * writes as one Statement batch, anything else executed once.
     */
    private Measured runBatches(Script script, int rows) throws Exception {
        return measure("flushless.mode=batch", c -> {
            List<String> run = new ArrayList<>();
            int number = 0;
            for (String sql : SqlAnalyzer.splitStatements(script.sql())) {
                number++;
                StatementDescription d = ANALYZER.describe(sql);
                if (d.kind().isWrite() && d.parameterCount() == 0 && d.isSingleStatement()) {
                    run.add(sql);
                    continue;
                }
                statementBatch(c, run);
                if (!d.kind().isWrite()) {
                    executeOnce(c, sql, Explain.transactionRow(number, d));
                    continue;
                }
                try (PreparedStatement ps = c.prepareStatement(sql)) {
                    for (Bind[] row : Explain.batchRows(d, rows)) {
                        for (int p = 0; p < row.length; p++) {
                            row[p].applyTo(ps, p + 1);
                        }
                        ps.addBatch();
                    }
                    ps.executeBatch();
                }
            }
            statementBatch(c, run);
        });
    }

    private static void statementBatch(Connection c, List<String> texts) throws SQLException {
        if (texts.isEmpty()) {
            return;
        }
        try (Statement s = c.createStatement()) {
            for (String text : texts) {
                s.addBatch(text);
            }
            s.executeBatch();
        }
        texts.clear();
    }
}
