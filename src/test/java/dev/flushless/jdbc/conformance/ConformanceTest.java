package dev.flushless.jdbc.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.FlushlessDataSource;
import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The conformance table: every {@link Behaviour} runs against bare pgjdbc and through Flushless (modes
 * {@code off}, {@code batch} and {@code transaction}, and {@code batch} with {@code flushless.exactSequences=true}),
 * each in a database of its own, and what the application observed, plus
 * the final rows of every table the behaviour left behind, must be identical.
 */
class ConformanceTest {

    /** Every behaviour of the table, by category. */
    static List<Behaviour> table() {
        List<Behaviour> all = new ArrayList<>();
        all.addAll(DdlAndQueries.behaviours());
        all.addAll(Setters.behaviours());
        all.addAll(Batches.behaviours());
        all.addAll(Transactions.behaviours());
        all.addAll(ErrorsAndWarnings.behaviours());
        all.addAll(PgjdbcExtensions.behaviours());
        all.addAll(Pooling.behaviours());
        all.addAll(BatchRewrites.behaviours());
        all.addAll(CopyDifferences.behaviours());
        return all;
    }

    private static final String[] VARIANTS = {
        "bare", "off", "batch", "transaction", "batch_exact", "batch_copy", "transaction_copy"
    };

    /**
     * The URL settings of each Flushless variant ({@code batch_exact}: batch mode with exact sequence values;
     * {@code *_copy}: plain INSERT batches as COPY wherever COPY stores what the INSERTs would, whatever their size).
     */
    private static String settings(String variant) {
        String mode = variant.startsWith("transaction") ? "transaction" : variant.equals("off") ? "off" : "batch";
        return "flushless.mode=" + mode
                + (variant.equals("batch_exact") ? "&flushless.exactSequences=true" : "")
                + "&" + TestDatabase.REWRITE_EVERYTHING
                + (variant.endsWith("_copy") ? "&flushless.copy=always" : "");
    }

    /**
     * Behaviours whose {@code mode=transaction} transcript differs from bare pgjdbc by the documented deviation
     * of that mode: an error of a buffered INSERT inside an explicit transaction surfaces at a later call (at
     * the latest at {@code commit()}), and a trigger added by another program after the table was read makes
     * the transaction fail at commit instead of changing a count already acknowledged. TransactionModeTest
     * checks what the application sees instead (the server's SQLState, the statement named, nothing committed).
     */
    static final java.util.Map<String, String> TRANSACTION_MODE_DEVIATIONS = java.util.Map.of(
            "batch insert (transaction): check, not-null and foreign-key violations",
            "error surfaces later",
            "batch insert (transaction): unique violation in the middle",
            "error surfaces later",
            "batch: error in the middle of a batch inside a transaction",
            "error surfaces later",
            "statement batch (transaction): a failing member gives pgjdbc's exception and counts",
            "error surfaces later",
            "transaction: a savepoint recovers a transaction aborted by an error",
            "error surfaces later",
            "transaction: an error aborts the transaction until rollback (25P02)",
            "error surfaces later",
            "COPY: a unique violation in the middle undoes the COPY; the batch runs as sent",
            "error surfaces later",
            "batch insert: a trigger added by another program is noticed and the batch re-run",
            "acknowledged count cannot change: the transaction fails at commit");

    private static final TestDatabase[] DATABASES = new TestDatabase[VARIANTS.length];

    @BeforeAll
    static void createDatabases() {
        for (int v = 0; v < VARIANTS.length; v++) {
            DATABASES[v] = PostgresExtension.createDatabase("conformance_" + VARIANTS[v]);
        }
    }

    @AfterAll
    static void dropDatabases() throws SQLException {
        for (TestDatabase database : DATABASES) {
            database.close();
        }
    }

    @Test
    void tableHasAtLeastSixtyBehavioursWithDistinctNames() {
        List<Behaviour> table = table();
        assertTrue(table.size() >= 60, "conformance table has only " + table.size() + " behaviours");
        assertEquals(
                table.size(), table.stream().map(Behaviour::name).distinct().count(), "duplicate behaviour names");
        assertTrue(
                table.stream()
                        .map(Behaviour::name)
                        .collect(java.util.stream.Collectors.toSet())
                        .containsAll(TRANSACTION_MODE_DEVIATIONS.keySet()),
                "a listed transaction-mode deviation names no behaviour");
    }

    @TestFactory
    Stream<DynamicTest> sameObservationsBareAndThroughFlushless() {
        List<Behaviour> table = table();
        List<DynamicTest> tests = new ArrayList<>();
        for (int i = 0; i < table.size(); i++) {
            Behaviour behaviour = table.get(i);
            String schema = "b" + i;
            tests.add(DynamicTest.dynamicTest(behaviour.name(), () -> {
                String bare = observe(0, schema, behaviour);
                for (int v = 1; v < VARIANTS.length; v++) {
                    if (VARIANTS[v].startsWith("transaction")
                            && TRANSACTION_MODE_DEVIATIONS.containsKey(behaviour.name())) {
                        if (TRANSACTION_MODE_DEVIATIONS.get(behaviour.name()).equals("error surfaces later")) {
                            sameErrorLater(behaviour.name(), bare, observe(v, schema, behaviour));
                        }
                        continue;
                    }
                    assertEquals(
                            bare,
                            observe(v, schema, behaviour),
                            "flushless mode " + VARIANTS[v] + " differs from bare pgjdbc in: " + behaviour.name());
                }
            }));
        }
        return tests.stream();
    }

    /**
     * Deviation 1's replacement for a transcript that cannot be equal: the error comes later (or, when the
     * transaction is rolled back first, never), but it is the same error (the first SQLState raised is bare pgjdbc's,
     * and no SQLState appears that bare pgjdbc does not raise), and the final rows are bare pgjdbc's.
     */
    private static void sameErrorLater(String name, String bare, String transaction) {
        String rows = "\n-- final rows --\n";
        assertEquals(
                bare.substring(bare.indexOf(rows)),
                transaction.substring(transaction.indexOf(rows)),
                name + ": mode=transaction left different rows than bare pgjdbc");
        List<String> bareStates = sqlStates(bare.substring(0, bare.indexOf(rows)));
        List<String> states = sqlStates(transaction.substring(0, transaction.indexOf(rows)));
        // none at all when the behaviour ends its transaction with rollback() or close(): the buffered write that
        // would fail is discarded unsent, and nothing of the transaction is committed either way
        assertTrue(
                states.isEmpty() || bareStates.get(0).equals(states.get(0)),
                name + ": mode=transaction raised " + states + ", bare pgjdbc " + bareStates + "\n" + transaction);
        assertTrue(
                bareStates.containsAll(states),
                name + ": mode=transaction raised " + states + ", bare pgjdbc " + bareStates);
    }

    /** The SQLStates of the exceptions a transcript records, in order. */
    private static List<String> sqlStates(String transcript) {
        List<String> states = new ArrayList<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?:Exception|Error)\\[([0-9A-Z]{5})\\]")
                .matcher(transcript);
        while (m.find()) {
            states.add(m.group(1));
        }
        return states;
    }

    /** Runs {@code behaviour} in a fresh schema of variant {@code v}'s database; returns the transcript and final rows. */
    private static String observe(int v, String schema, Behaviour behaviour) throws Exception {
        TestDatabase db = DATABASES[v];
        db.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE", "CREATE SCHEMA " + schema);
        String pgjdbcUrl = withParameter(db.pgjdbcUrl(), "currentSchema=" + schema);
        String url = v == 0
                ? pgjdbcUrl
                : withParameter("jdbc:flushless:" + pgjdbcUrl.substring("jdbc:".length()), settings(VARIANTS[v]));
        Properties credentials = db.credentials();
        List<Connection> opened = new ArrayList<>();
        Transcript transcript = new Transcript();
        try {
            Connection main = DriverManager.getConnection(url, credentials);
            opened.add(main);
            Behaviour.Env env = new Behaviour.Env() {
                @Override
                public Connection connection() {
                    return main;
                }

                @Override
                public Connection open() throws SQLException {
                    Connection c = DriverManager.getConnection(url, credentials);
                    opened.add(c);
                    return c;
                }

                @Override
                public DataSource dataSource() {
                    return dataSourceFor(v, url, credentials);
                }

                @Override
                public Connection open(String flushlessParameters) throws SQLException {
                    Connection c = DriverManager.getConnection(
                            v == 0 ? url : withParameter(url, flushlessParameters), credentials);
                    opened.add(c);
                    return c;
                }

                @Override
                public Connection openOutside() throws SQLException {
                    Connection c = DriverManager.getConnection(pgjdbcUrl, credentials);
                    opened.add(c);
                    return c;
                }
            };
            try (dev.flushless.jdbc.testing.FallbackLog log = new dev.flushless.jdbc.testing.FallbackLog()) {
                behaviour.action().run(env, transcript);
                if (VARIANTS[v].equals("batch") || VARIANTS[v].equals("batch_copy")) {
                    checkExpectation(copyExpectation(behaviour.expectation(), VARIANTS[v]), opened, log.texts());
                }
            }
        } catch (Exception e) {
            if (v == 0) {
                throw new AssertionError("behaviour '" + behaviour.name() + "' failed on bare pgjdbc: " + e, e);
            }
            transcript.add("uncaught", Transcript.describeException(e));
        } finally {
            for (Connection c : opened) {
                try {
                    c.close();
                } catch (SQLException ignored) {
                    // a behaviour may have broken its connection on purpose
                }
            }
        }
        return transcript + "\n-- final rows --\n" + finalRows(db, schema);
    }

    /**
     * What a behaviour's expectation asks of {@code variant}: in {@code batch} (COPY off) a COPY expectation is one of an
     * INSERT form, and "not COPY" nothing; in {@code batch_copy} only the COPY expectations count.
     */
    private static Behaviour.Expectation copyExpectation(Behaviour.Expectation expected, String variant) {
        String kind = expected.rewriteKind();
        boolean aboutCopy = kind != null && kind.endsWith(Behaviour.COPY);
        if (variant.equals("batch")) {
            return !aboutCopy
                    ? expected
                    : kind.startsWith("!")
                            ? Behaviour.Expectation.NONE
                            : new Behaviour.Expectation("insert-", expected.fallbackReason());
        }
        return aboutCopy ? new Behaviour.Expectation(kind, null) : Behaviour.Expectation.NONE;
    }

    /** Fails when the batch-mode run did not rewrite (or fall back) as the behaviour expects. */
    private static void checkExpectation(
            Behaviour.Expectation asked, List<Connection> opened, List<String> fallbackTexts) throws SQLException {
        if (asked.rewriteKind() == null && asked.fallbackReason() == null) {
            return;
        }
        boolean absent = asked.rewriteKind() != null && asked.rewriteKind().startsWith("!");
        Behaviour.Expectation expected =
                absent ? new Behaviour.Expectation(asked.rewriteKind().substring(1), null) : asked;
        long rewritten = 0;
        StringBuilder seen = new StringBuilder();
        boolean fellBack = false;
        for (Connection c : opened) {
            if (c.isClosed() || !c.isWrapperFor(dev.flushless.jdbc.FlushlessConnection.class)) {
                continue;
            }
            dev.flushless.jdbc.stats.FlushlessStats stats =
                    c.unwrap(dev.flushless.jdbc.FlushlessConnection.class).flushlessStats();
            seen.append(stats).append('\n');
            if (expected.rewriteKind() != null) {
                rewritten += stats.rewrites().entrySet().stream()
                        .filter(e -> e.getKey().startsWith(expected.rewriteKind()))
                        .mapToLong(java.util.Map.Entry::getValue)
                        .sum();
            }
        }
        if (expected.fallbackReason() != null) {
            // the report counts codes; the texts (with the reason) are in the DEBUG log
            seen.append("fallback texts: ").append(fallbackTexts).append('\n');
            fellBack = fallbackTexts.stream().anyMatch(r -> r.contains(expected.fallbackReason()));
        }
        if (absent) {
            if (rewritten > 0) {
                throw new AssertionError("expected no " + expected.rewriteKind() + "; stats: " + seen);
            }
            return;
        }
        if (expected.rewriteKind() != null && rewritten == 0) {
            throw new AssertionError("expected rewrite " + expected.rewriteKind() + " in batch mode; stats: " + seen);
        }
        if (expected.fallbackReason() != null && !fellBack) {
            throw new AssertionError(
                    "expected a fallback containing '" + expected.fallbackReason() + "'; stats: " + seen);
        }
    }

    private static DataSource dataSourceFor(int v, String url, Properties credentials) {
        if (v == 0) {
            PGSimpleDataSource ds = new PGSimpleDataSource();
            ds.setURL(url);
            if (credentials.getProperty("user") != null) {
                ds.setUser(credentials.getProperty("user"));
            }
            return ds;
        }
        FlushlessDataSource ds = new FlushlessDataSource();
        ds.setUrl(url);
        ds.setUser(credentials.getProperty("user"));
        return ds;
    }

    private static String finalRows(TestDatabase db, String schema) throws SQLException {
        StringBuilder out = new StringBuilder();
        try (Connection c = db.bare();
                Statement s = c.createStatement()) {
            List<String> tables = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("SELECT table_name FROM information_schema.tables WHERE table_schema = '"
                    + schema + "' AND table_type = 'BASE TABLE' ORDER BY table_name")) {
                while (rs.next()) {
                    tables.add(rs.getString(1));
                }
            }
            for (String table : tables) {
                out.append("table ").append(table).append('\n');
                try (ResultSet rs =
                        s.executeQuery("SELECT t::text FROM " + schema + ".\"" + table + "\" t ORDER BY 1")) {
                    while (rs.next()) {
                        out.append("  ").append(rs.getString(1)).append('\n');
                    }
                }
            }
        }
        return out.toString();
    }

    private static String withParameter(String url, String parameter) {
        return url + (url.contains("?") ? "&" : "?") + parameter;
    }
}
