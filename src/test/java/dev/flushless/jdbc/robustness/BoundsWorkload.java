package dev.flushless.jdbc.robustness;

import dev.flushless.jdbc.analysis.SqlAnalyzer;
import dev.flushless.jdbc.wrapper.WrapperInternals;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

/**
 * The workload {@link BoundsTest} runs in a child JVM with a small heap ({@code -Xmx64m}): unbounded
 * distinct SQL texts (2,000 literal INSERTs, 10 times the cache's 200 entries, Statement batches and
 * PreparedStatement texts, texts
 * carrying 50,000-character literals) and very large transactions and batches. It checks the driver-wide
 * parse cache and the transaction write buffer against their limits as it goes, and exits 0 when every
 * check held (an OutOfMemoryError, or a failed check, exits otherwise). Usage:
 * {@code BoundsWorkload <jdbc:flushless:postgresql://...> <user or "">}; the tables {@code bounds_lit},
 * {@code bounds_big} and {@code bounds_rows} ({@code id int, v text}) must exist.
 */
public final class BoundsWorkload {

    /** flushless.parseCacheSize of the child's first connection, which sizes the driver-wide cache. */
    static final int CACHE = 200;

    static final int MAX_ROWS = 2000;
    static final int MAX_BYTES = 2 * 1024 * 1024;
    /** Characters of a large literal (about 50 KB; a cache or buffer holding a thousand of them would not fit). */
    static final int BIG = 50_000;

    private BoundsWorkload() {}

    public static void main(String[] args) throws Exception {
        String url = args[0] + (args[0].contains("?") ? "&" : "?") + "flushless.parseCacheSize=" + CACHE
                + "&flushless.maxBufferedRows=" + MAX_ROWS + "&flushless.maxBufferedBytes=" + MAX_BYTES;
        Properties properties = new Properties();
        if (args.length > 1 && !args[1].isEmpty()) {
            properties.setProperty("user", args[1]);
        }
        long start = System.nanoTime();
        try (Connection c = DriverManager.getConnection(url + "&flushless.mode=transaction", properties)) {
            distinctLiteralInserts(c, 2_000);
            phase("2,000 distinct literal INSERTs (mode=transaction, buffered)", start);
            largeLiteralInserts(c, 100);
            phase("100 INSERTs with 50,000-character literals (mode=transaction, buffered)", start);
            largeTransaction(c, 100_000);
            phase("a 100,000-row transaction of prepared INSERTs", start);
        }
        try (Connection c = DriverManager.getConnection(url + "&flushless.mode=batch", properties)) {
            largeLiteralStatementBatches(c, 60);
            phase("60 Statement batches of two 50,000-character texts (mode=batch)", start);
            distinctPreparedTexts(c, 500);
            phase("500 distinct PreparedStatement batch texts (mode=batch)", start);
            largeBatch(c, 100_000);
            phase("a 100,000-row PreparedStatement batch (mode=batch)", start);
        }
        System.out.println("BOUNDS OK");
    }

    private static void phase(String what, long start) {
        Runtime rt = Runtime.getRuntime();
        System.out.printf(
                "BOUNDS %s: done at %d ms; parse cache %d entries, %d chars; heap used %d MB of %d MB%n",
                what,
                (System.nanoTime() - start) / 1_000_000,
                WrapperInternals.parseCacheEntries(),
                WrapperInternals.parseCacheChars(),
                (rt.totalMemory() - rt.freeMemory()) >> 20,
                rt.maxMemory() >> 20);
        checkCache(what);
    }

    private static void checkCache(String when) {
        int entries = WrapperInternals.parseCacheEntries();
        long chars = WrapperInternals.parseCacheChars();
        if (entries > CACHE || chars > CACHE * SqlAnalyzer.CHARS_PER_ENTRY) {
            throw new AssertionError(when + ": the parse cache holds " + entries + " texts of " + chars
                    + " characters; its bounds are " + CACHE + " texts and " + CACHE * SqlAnalyzer.CHARS_PER_ENTRY
                    + " characters");
        }
    }

    /** The transaction write buffer holds at most its bounds after every application call. */
    private static void checkBuffer(Connection c, String when) throws SQLException {
        long rows = WrapperInternals.bufferedRows(c);
        long bytes = WrapperInternals.bufferedBytes(c);
        if (rows > MAX_ROWS || bytes > MAX_BYTES) {
            throw new AssertionError(when + ": " + rows + " rows / " + bytes + " bytes buffered; bounds are " + MAX_ROWS
                    + " rows and " + MAX_BYTES + " bytes");
        }
    }

    private static void distinctLiteralInserts(Connection c, int n) throws SQLException {
        c.setAutoCommit(false);
        try (Statement st = c.createStatement()) {
            for (int i = 0; i < n; i++) {
                if (st.executeUpdate("INSERT INTO bounds_lit (id, v) VALUES (" + i + ", 'literal " + i + "')") != 1) {
                    throw new AssertionError("count");
                }
                checkBuffer(c, "distinct literal INSERT " + i);
                if (i % 500 == 499) {
                    c.commit();
                    checkCache("after " + (i + 1) + " distinct texts");
                }
            }
        }
        c.commit();
        c.setAutoCommit(true);
        expectRows(c, "bounds_lit", n);
        if (WrapperInternals.parseCacheEntries() != CACHE) {
            throw new AssertionError("the parse cache should be full after " + n + " distinct texts: "
                    + WrapperInternals.parseCacheEntries());
        }
    }

    /**
     * Plain-Statement INSERTs whose value is a 50,000-character literal: the buffer holds their texts, so the
     * byte bound must count them (2,000 such rows, the row bound, would be 100 MB).
     */
    private static void largeLiteralInserts(Connection c, int n) throws SQLException {
        String filler = "x".repeat(BIG);
        c.setAutoCommit(false);
        try (Statement st = c.createStatement()) {
            for (int i = 0; i < n; i++) {
                st.executeUpdate("INSERT INTO bounds_big (id, v) VALUES (" + i + ", '" + filler + i + "')");
                checkBuffer(c, "INSERT with a large literal " + i);
                long held = WrapperInternals.bufferedRows(c) * (long) BIG;
                if (held > MAX_BYTES) {
                    throw new AssertionError("INSERT with a large literal " + i + ": "
                            + WrapperInternals.bufferedRows(c)
                            + " buffered texts of " + BIG + " characters exceed flushless.maxBufferedBytes=" + MAX_BYTES
                            + " (the estimate counts " + WrapperInternals.bufferedBytes(c) + " bytes)");
                }
            }
        }
        c.commit();
        c.setAutoCommit(true);
        expectRows(c, "bounds_big", n);
    }

    private static void largeTransaction(Connection c, int n) throws SQLException {
        c.setAutoCommit(false);
        String value = "v".repeat(200);
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO bounds_rows (id, v) VALUES (?, ?)")) {
            for (int i = 0; i < n; i++) {
                ps.setInt(1, i);
                ps.setString(2, value);
                ps.executeUpdate();
                checkBuffer(c, "row " + i + " of a large transaction");
            }
            // and one batch larger than the row bound
            for (int i = n; i < n + 3 * MAX_ROWS; i++) {
                ps.setInt(1, i);
                ps.setString(2, value);
                ps.addBatch();
            }
            ps.executeBatch();
            checkBuffer(c, "a batch of " + 3 * MAX_ROWS + " rows");
        }
        c.commit();
        c.setAutoCommit(true);
        expectRows(c, "bounds_rows", n + 3 * MAX_ROWS);
    }

    /** Statement batches (each text analysed, and cached, on the way to a CTE chain) of large distinct texts. */
    private static void largeLiteralStatementBatches(Connection c, int n) throws SQLException {
        String filler = "y".repeat(BIG);
        try (Statement st = c.createStatement()) {
            st.execute("TRUNCATE bounds_big");
            for (int i = 0; i < n; i++) {
                st.addBatch("INSERT INTO bounds_big (id, v) VALUES (" + (2 * i) + ", '" + filler + i + "')");
                st.addBatch("INSERT INTO bounds_big (id, v) VALUES (" + (2 * i + 1) + ", '" + filler + i + "')");
                int[] counts = st.executeBatch();
                if (counts.length != 2 || counts[0] != 1 || counts[1] != 1) {
                    throw new AssertionError("counts " + java.util.Arrays.toString(counts));
                }
                checkCache("Statement batch " + i);
            }
        }
        expectRows(c, "bounds_big", 2 * n);
    }

    private static void distinctPreparedTexts(Connection c, int n) throws SQLException {
        for (int i = 0; i < n; i++) {
            try (PreparedStatement ps =
                    c.prepareStatement("INSERT INTO bounds_lit (id, v) VALUES (?, ? || '" + i + "')")) {
                for (int r = 0; r < 2; r++) {
                    ps.setInt(1, -i);
                    ps.setString(2, "p");
                    ps.addBatch();
                }
                ps.executeBatch();
            }
        }
    }

    private static void largeBatch(Connection c, int n) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("TRUNCATE bounds_rows");
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO bounds_rows (id, v) VALUES (?, ?)")) {
            for (int i = 0; i < n; i++) {
                ps.setInt(1, i);
                ps.setString(2, "row");
                ps.addBatch();
            }
            int[] counts = ps.executeBatch();
            if (counts.length != n) {
                throw new AssertionError("counts " + counts.length);
            }
        }
        expectRows(c, "bounds_rows", n);
    }

    private static void expectRows(Connection c, String table, long n) throws SQLException {
        try (Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            if (rs.getLong(1) != n) {
                throw new AssertionError(table + " holds " + rs.getLong(1) + " rows, expected " + n);
            }
        }
    }
}
