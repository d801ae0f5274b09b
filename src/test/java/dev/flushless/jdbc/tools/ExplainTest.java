package dev.flushless.jdbc.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.analysis.SqlAnalyzer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The explain command, offline: splitting, plans, chains, summary, arguments and exit codes. */
class ExplainTest {

    /** Exit code and both streams of one run. */
    private record Result(int code, String out, String err) {}

    /**
     * {@code args} of an {@code explain} with the settings the tests' driver URLs carry
     * ({@link dev.flushless.jdbc.testing.TestDatabase#REWRITE_EVERYTHING}), so that small examples show the rewrites.
     */
    static String[] pinned(String... args) {
        if (args.length == 0
                || !args[0].equals("explain")
                || java.util.Arrays.asList(args).contains("--set")) {
            return args;
        }
        java.util.List<String> all = new java.util.ArrayList<>(java.util.List.of(args));
        int at = 1;
        for (String setting : dev.flushless.jdbc.testing.TestDatabase.REWRITE_EVERYTHING.split("&")) {
            all.add(at++, "--set");
            all.add(at++, setting);
        }
        return all.toArray(new String[0]);
    }

    private static Result run(String stdin, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = FlushlessMain.run(
                pinned(args),
                new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void splitsAtTopLevelSemicolonsOnly() {
        String script = "INSERT INTO t VALUES ('a;b', E'c\\';d');\n"
                + "-- a comment; with a semicolon\n"
                + "UPDATE t SET x = $$;$$ || $tag$ ; $$ ; $tag$ WHERE \"we;ird\" = 1 /* block ; /* nested ; */ */;\n"
                + "SELECT f(';', (SELECT 1));;\n"
                + "DELETE FROM t WHERE id = ?\n"
                + "-- trailing comment only;\n";
        List<String> statements = SqlAnalyzer.splitStatements(script);
        assertEquals(
                List.of(
                        "INSERT INTO t VALUES ('a;b', E'c\\';d')",
                        "-- a comment; with a semicolon\n"
                                + "UPDATE t SET x = $$;$$ || $tag$ ; $$ ; $tag$ WHERE \"we;ird\" = 1", // trailing
                        // comment left
                        // out
                        "SELECT f(';', (SELECT 1))",
                        "DELETE FROM t WHERE id = ?"),
                statements);
    }

    @Test
    void unterminatedQuoteExtendsToTheEnd() {
        assertEquals(
                List.of("INSERT INTO t VALUES (1)", "INSERT INTO t VALUES ('open; still open"),
                SqlAnalyzer.splitStatements("INSERT INTO t VALUES (1); INSERT INTO t VALUES ('open; still open"));
    }

    @Test
    void insertBatchIsCoalescedIntoChunksOfMaxRows() {
        Result r = run(
                "INSERT INTO orders (id, customer) VALUES (?, ?);",
                "explain",
                "--rows",
                "10000",
                "--max-rows",
                "4096",
                "-");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("coalesced: insert-unnest"), r.out());
        assertTrue(r.out().contains("statements: 10000 issued -> 3 sent (in one round trip)"), r.out());
        assertTrue(r.out().contains("first statement: 4096 rows"), r.out());
        assertTrue(r.out().contains("INSERT INTO orders (id, customer) SELECT"), r.out());
        assertTrue(r.out().contains("untyped (text) parameters"), r.out());
        // 4096 and 4096 rows: two flushes each (one per 3072 rows), 1808 rows: one
        assertTrue(r.out().contains("estimated YugabyteDB flushes: 10000 before -> 5 after"), r.out());
    }

    /** The same upsert batch explained for each YugabyteDB release: the driver's own ON CONFLICT choice and model. */
    @Test
    void eachYugabyteReleaseGetsItsOwnChoiceAndModel() {
        String upsert = "INSERT INTO stock (sku, qty) VALUES (?, ?) ON CONFLICT (sku) DO NOTHING;";
        Result y2024 = run(upsert, "explain", "--yugabyte", "2024.2.6.2", "-");
        assertEquals(0, y2024.code(), y2024.err());
        assertTrue(y2024.out().contains("the release's defaults, as yugabyted deploys it"), y2024.out());
        assertTrue(y2024.out().contains("takes the anti-join form"), y2024.out());
        assertTrue(
                y2024.out().contains("server: YugabyteDB 2024.2.6.2 (series 2024.2, PostgreSQL 11 based)"),
                y2024.out());
        assertTrue(y2024.out().contains("isolation: repeatable read (effective)"), y2024.out());
        assertTrue(y2024.out().contains("flushless.minBatchRows=2"), "the YugabyteDB size rule: " + y2024.out());
        // offline the anti-join lacks the table's unique keys: the batch runs natively, one flush per row
        assertTrue(y2024.out().contains("estimated YugabyteDB flushes: 1000 before -> 1000 after"), y2024.out());

        Result y2025 = run(upsert, "explain", "--yugabyte", "2025.2.8.0", "-");
        assertEquals(0, y2025.code(), y2025.err());
        assertTrue(y2025.out().contains("takes the native form"), y2025.out());
        assertTrue(y2025.out().contains("isolation: read committed (effective)"), y2025.out());
        assertTrue(y2025.out().contains("reads batched by the server"), y2025.out());
        assertTrue(y2025.out().contains("coalesced: upsert-do-nothing"), y2025.out());
        assertTrue(y2025.out().contains("estimated YugabyteDB flushes: 1000 before -> 1 after"), y2025.out());
        assertTrue(
                y2025.out().contains("of which wait for consensus (in autocommit): 1000 before -> 1 after"),
                y2025.out());
        assertTrue(y2025.out().contains("off: every flush waits for consensus"), y2025.out());

        Result main = run(upsert, "explain", "--yugabyte", "2.31.0.0-b280", "--mode", "transaction", "-");
        assertEquals(0, main.code(), main.err());
        assertTrue(main.out().contains("write pipelining: on"), main.out());
        assertTrue(main.out().contains("waiting for consensus (the flush model above): the COMMIT only"), main.out());

        Result off = run(upsert, "explain", "--yugabyte", "2.31.0.0", "--set", "flushless.writePipelining=off", "-");
        assertTrue(off.out().contains("write pipelining: off"), off.out());

        Result postgres = run(upsert, "explain", "--set", "flushless.minBatchRows=2", "-");
        assertTrue(
                postgres.out().contains("(offline; flushless.onConflict=auto takes the native form"), postgres.out());
        assertTrue(postgres.out().contains("server: not YugabyteDB"), postgres.out());

        Result forced = run(
                upsert, "explain", "--set", "flushless.onConflict=antijoin", "--set", "flushless.minBatchRows=2", "-");
        assertTrue(forced.out().contains("flushless.onConflict=antijoin takes the anti-join form"), forced.out());

        Result bad = run(upsert, "explain", "--yugabyte", "latest", "-");
        assertEquals(2, bad.code());
        assertTrue(bad.err().contains("--yugabyte takes a release such as 2025.2.8.0"), bad.err());
    }

    @Test
    void defaultsAreAThousandRowsAndOneStatement() {
        Result r = run("UPDATE products SET price = ? WHERE id = ?", "explain", "-");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("coalesced: update-join-unnest"), r.out());
        assertTrue(r.out().contains("statements: 1000 issued -> 1 sent"), r.out());
        assertTrue(r.out().contains("flushless.maxRowsPerStatement=4096"), r.out());
    }

    @Test
    void unparsableStatementIsAFallbackWithItsReason() {
        Result r = run(
                "INSERT INTO audit SELECT * FROM orders WHERE id = ?;\nUPDATE t SET a = ? WHERE b IN (?, ?)",
                "explain",
                "--rows",
                "50",
                "-");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("[1] line 1: INSERT INTO audit"), r.out());
        assertTrue(r.out().contains("not coalesced, runs as sent: INSERT ... SELECT"), r.out());
        assertTrue(r.out().contains("[2] line 2: UPDATE t"), r.out());
        assertTrue(r.out().contains("not coalesced, runs as sent: WHERE conjunct not of the form column = ?"), r.out());
        assertTrue(r.out().contains("statements: 50 issued -> 50 sent"), r.out());
    }

    /** The multi-statement article's three-table transaction: three INSERTs become one chained statement. */
    @Test
    void referenceArticleThreeTableTransactionBecomesOneStatement() {
        Result r = run(
                "insert into demo1(value) values ('Bonjour');\n"
                        + "insert into demo2(value) values ('Ciao');\n"
                        + "insert into demo3(value) values ('Grüezi');\n",
                "explain",
                "-");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("Statement batch of statements [1] to [3]: coalesced: statement-chain"), r.out());
        assertTrue(r.out().contains("statements: 3 issued -> 1 sent"), r.out());
        assertTrue(r.out().contains("flushless_s3 AS (insert into demo3(value) values ('Grüezi')"), r.out());
    }

    /**
     * The write-buffering article's examples: the generate_series insert and its ON CONFLICT variant are
     * INSERT ... SELECT (one statement already, run as sent); its row-by-row form as a batch is coalesced.
     */
    @Test
    void referenceArticleOnConflictExamples() {
        Result r = run(
                "insert into demo (id,a,b,c) select generate_series(100000,200000),0,0,0 on conflict do nothing;\n"
                        + "insert into demo (id, a, b, c) values (?, ?, ?, ?) on conflict (id) do nothing;\n",
                "explain",
                "--rows",
                "3000",
                "-");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("not coalesced, runs as sent: INSERT ... SELECT"), r.out());
        assertTrue(r.out().contains("coalesced: upsert-do-nothing"), r.out());
        assertTrue(r.out().contains("statements: 3000 issued -> 1 sent"), r.out());
    }

    @Test
    void statementBatchIsGroupedIntoChains() {
        Result r = run(
                "INSERT INTO log (msg) VALUES ('one');\n"
                        + "INSERT INTO log (msg) VALUES ('two');\n"
                        + "UPDATE counters SET n = n + 1 WHERE name = 'a';\n"
                        + "UPDATE counters SET n = n + 1 WHERE name = 'b';\n",
                "explain",
                "-");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("Statement batch of statements [1] to [4]: coalesced: statement-chain"), r.out());
        assertTrue(r.out().contains("statements: 4 issued -> 2 sent"), r.out());
        assertTrue(r.out().contains("chain 1 of [1], [2], [3]:"), r.out());
        assertTrue(r.out().contains("WITH flushless_s1 AS (INSERT INTO log (msg) VALUES ('one')"), r.out());
        assertTrue(r.out().contains("[4] alone, as written") || r.out().contains("chain 2"), r.out());
        assertTrue(
                r.out().contains("Statement batches (parameterless writes, once each): 4 issued -> 2 sent"), r.out());
    }

    /** The output with every run of whitespace as one space (explanations wrap at about 110 characters). */
    private static String flat(Result r) {
        return r.out().replaceAll("\\s+", " ");
    }

    /** The transaction section and its summary only. */
    private static String transactionSection(Result r) {
        String out = flat(r);
        int start = out.indexOf("== flushless.mode=transaction:");
        assertTrue(start >= 0, r.out());
        return out.substring(start);
    }

    @Test
    void batchModeHasNoTransactionSection() {
        Result r = run("INSERT INTO t (a) VALUES (?)", "explain", "-");
        assertEquals(0, r.code(), r.err());
        assertFalse(r.out().contains("flushless.mode=transaction"), r.out());
    }

    /**
     * The multi-statement article's three-table transaction in transaction mode: the three INSERTs are
     * buffered and the commit, with nothing sent before, runs them as one statement in one round trip.
     */
    @Test
    void referenceArticleThreeTableTransactionIsOneRoundTrip() {
        Result r = run(
                "insert into demo1(value) values ('Bonjour');\n"
                        + "insert into demo2(value) values ('Ciao');\n"
                        + "insert into demo3(value) values ('Grüezi');\n",
                "explain",
                "--mode",
                "transaction",
                "-");
        assertEquals(0, r.code(), r.err());
        assertFalse(r.out().contains("not implemented"), r.out());
        assertTrue(r.out().contains("Settings: flushless.mode=transaction,"), r.out());
        // the batch sections are kept as they are
        assertTrue(r.out().contains("Statement batch of statements [1] to [3]: coalesced: statement-chain"), r.out());
        String tx = transactionSection(r);
        assertEquals(3, tx.split("buffered: a plain INSERT \\.\\.\\. VALUES", -1).length - 1, tx);
        assertTrue(
                tx.contains("end of script: commit(), fused: nothing of the transaction was sent yet, so the 3"
                        + " buffered INSERTs ([1], [2], [3]) run as one implicit transaction (no BEGIN, no COMMIT): 1 statement"
                        + " in one round trip"),
                tx);
        assertTrue(
                tx.contains(
                        "flush statement 1 of 1: WITH flushless_s1 AS (insert into demo1(value) values ('Bonjour')"),
                tx);
        assertTrue(tx.contains("flushless_s3 AS (insert into demo3(value) values ('Grüezi') RETURNING 1)"), tx);
        assertTrue(tx.contains("flushes: 1 (at commit 1), sending 1 statement for the 3 buffered INSERTs"), tx);
        assertTrue(
                tx.contains("round trips: bare pgjdbc 4 (3 statements + 1 COMMIT) -> flushless.mode=transaction 1"),
                tx);
        assertTrue(
                tx.contains("statements sent (BEGIN not counted): bare pgjdbc 4 -> flushless.mode=transaction 1"), tx);
        assertTrue(tx.contains("1 commit fused, without COMMIT"), tx);
    }

    /** BEGIN and COMMIT lines are the transaction's boundaries, not statements. */
    @Test
    void beginAndCommitLinesAreTheTransactionBoundaries() {
        Result r = run(
                "BEGIN;\ninsert into a (v) values ('x');\ninsert into b (v) values ('y');\nCOMMIT;\n",
                "explain",
                "--mode",
                "transaction",
                "-");
        assertEquals(0, r.code(), r.err());
        String tx = transactionSection(r);
        assertTrue(
                tx.contains("[1] line 1: BEGIN transaction start: taken as setAutoCommit(false); nothing is sent"), tx);
        assertTrue(tx.contains("[4] line 4: COMMIT commit(), fused"), tx);
        assertFalse(tx.contains("end of script"), tx);
        assertTrue(
                tx.contains("round trips: bare pgjdbc 3 (2 statements + 1 COMMIT) -> flushless.mode=transaction 1"),
                tx);
    }

    @Test
    void insertThenSelectOfTheSameTableCarriesTheBufferInItsRoundTrip() {
        Result r = run(
                "INSERT INTO orders (id, customer) VALUES (?, ?);\n"
                        + "SELECT count(*) FROM Orders WHERE customer = ?;\n",
                "explain",
                "--mode",
                "transaction",
                "-");
        assertEquals(0, r.code(), r.err());
        String tx = transactionSection(r);
        assertTrue(tx.contains("[1] line 1: INSERT INTO orders (id, customer) VALUES (?, ?) buffered"), tx);
        assertTrue(
                tx.contains(
                        "[2] line 2: SELECT count(*) FROM Orders WHERE customer = ? flush with it (read of a written"
                                + " table): the query must follow the buffered writes, so it carries 1 buffered write ([1]) as 1"
                                + " statement, then runs, in one round trip flush statement 1 of 1: WITH flushless_s1 AS (INSERT"
                                + " INTO orders (id, customer) VALUES (?, ?) RETURNING 1)"),
                tx);
        assertTrue(tx.contains("end of script: commit(): nothing buffered; COMMIT: 1 round trip"), tx);
        assertTrue(
                tx.contains("round trips: bare pgjdbc 3 (2 statements + 1 COMMIT) -> flushless.mode=transaction 2"),
                tx);
    }

    /**
     * Hibernate's id fetches and reads of other tables leave the buffer alone (offline, tables are assumed to
     * have no identity column or sequence default, which would make the nextval flush); the commit then sends
     * the buffer with COMMIT.
     */
    @Test
    void nextvalAndReadsOfOtherTablesDoNotFlush() {
        Result r = run(
                "INSERT INTO orders (id) VALUES (?);\n"
                        + "select nextval('order_seq');\n"
                        + "SELECT price FROM products WHERE sku = ?;\n"
                        + "INSERT INTO order_line (order_id, sku) VALUES (?, ?);\n",
                "explain",
                "--mode",
                "transaction",
                "-");
        assertEquals(0, r.code(), r.err());
        String tx = transactionSection(r);
        assertTrue(
                tx.contains("[2] line 2: select nextval('order_seq') runs without flushing: reads no table; the"
                        + " buffered INSERT stays buffered; 1 round trip"),
                tx);
        assertTrue(
                tx.contains("(a sequence call: it flushes first when a buffered INSERT's table has an identity column"
                        + " or a default drawing from a sequence"),
                tx);
        assertTrue(
                tx.contains("[3] line 3: SELECT price FROM products WHERE sku = ? runs without flushing: reads only"
                        + " products, none written by the buffer"),
                tx);
        assertFalse(tx.contains("flush first"), tx);
        assertTrue(
                tx.contains("commit(): sends the 2 buffered INSERTs ([1], [4]) as 1 statement and COMMIT in one round"
                        + " trip"),
                tx);
        assertTrue(
                tx.contains("round trips: bare pgjdbc 5 (4 statements + 1 COMMIT) -> flushless.mode=transaction 3"),
                tx);
        assertTrue(tx.contains("2 reads without flushing"), tx);
    }

    @Test
    void writesRideAlongOrFlushFirstAndDdlFlushes() {
        Result r = run(
                "INSERT INTO log (msg) VALUES ('a');\n"
                        + "UPDATE stock SET n = n - ? WHERE sku = ?;\n"
                        + "INSERT INTO log (msg) VALUES ('b');\n"
                        + "INSERT INTO log (msg) VALUES ('c') RETURNING id;\n"
                        + "INSERT INTO log (msg) VALUES ('d');\n"
                        + "CREATE INDEX ON log (msg);\n"
                        + "INSERT INTO log (msg) VALUES ('e');\n"
                        + "SELECT f(1);\n"
                        + "INSERT INTO log (msg) VALUES ('f');\n"
                        + "ROLLBACK;\n",
                "explain",
                "--mode",
                "transaction",
                "-");
        assertEquals(0, r.code(), r.err());
        String tx = transactionSection(r);
        assertTrue(
                tx.contains("[2] line 2: UPDATE stock SET n = n - ? WHERE sku = ? flush with it (write riding along):"
                        + " its update count is needed at once, so it rides along with the buffer: sends 1 buffered INSERT ([1])"
                        + " as 1 statement, then this statement, in one round trip"),
                tx);
        assertTrue(
                tx.contains("[4] line 4: INSERT INTO log (msg) VALUES ('c') RETURNING id not buffered: RETURNING: its"
                        + " rows are read flush first (write that cannot ride along): RETURNING: its rows are read; sends 1"
                        + " buffered INSERT ([3])"),
                tx);
        assertTrue(
                tx.contains("[6] line 6: CREATE INDEX ON log (msg) flush first (DDL or other statement): neither a"
                        + " SELECT nor a write (DDL); sends 1 buffered INSERT ([5])"),
                tx);
        assertTrue(tx.contains("[8] line 8: SELECT f(1) flush with it (unanalysable read)"), tx);
        assertTrue(
                tx.contains("[10] line 10: ROLLBACK rollback(): 1 buffered INSERT ([9]) discarded unsent; ROLLBACK: 1"
                        + " round trip"),
                tx);
        assertTrue(
                tx.contains(
                        "flushes: 4 (write riding along 1, write that cannot ride along 1, DDL or other statement 1,"
                                + " unanalysable read 1), sending 4 statements for the 5 buffered INSERTs"),
                tx);
        // bare: 9 statements + ROLLBACK; transaction mode: UPDATE (with its ride), 2 x (flush + statement), the query
        // carrying its flush, ROLLBACK
        assertTrue(
                tx.contains("round trips: bare pgjdbc 10 (9 statements + 1 ROLLBACK) -> flushless.mode=transaction 7"),
                tx);
    }

    @Test
    void helpPrintsUsage() {
        Result r = run("", "explain", "--help");
        assertEquals(0, r.code());
        assertTrue(r.out().startsWith("usage: explain"), r.out());
        assertEquals(0, run("", "--help").code());
    }

    @Test
    void badArgumentsExitWithTwo() {
        for (String[] args : new String[][] {
            {"explain"},
            {"explain", "--rows", "0", "-"},
            {"explain", "--rows"},
            {"explain", "--rows", "many", "-"},
            {"explain", "--mode", "eager", "-"},
            {"explain", "--bogus", "-"},
            {"explain", "a.sql", "b.sql"},
            {"frobnicate"},
            {}
        }) {
            Result r = run("", args);
            assertEquals(2, r.code(), String.join(" ", args));
            assertTrue(!r.err().isBlank(), String.join(" ", args));
        }
        Result r = run("", "explain", "--max-rows", "70000", "-");
        assertTrue(r.err().contains("--max-rows must be a whole number from 1 to 65535, not '70000'"), r.err());
    }

    @Test
    void unreadableInputExitsWithTwoNamingTheFile(@TempDir Path dir) throws IOException {
        Path missing = dir.resolve("missing.sql");
        Result r = run("", "explain", missing.toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains("cannot read " + missing + ": no such file"), r.err());

        r = run("", "explain", dir.toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains("cannot read " + dir + ": it is a directory"), r.err());

        Path binary = dir.resolve("binary.sql");
        Files.write(binary, new byte[] {(byte) 0xff, (byte) 0xfe, 0x00});
        r = run("", "explain", binary.toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains("cannot read " + binary + ": not UTF-8 text"), r.err());
    }

    @Test
    void readsAFile(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("w.sql");
        Files.writeString(file, "-- header\nINSERT INTO t (a) VALUES (?);\n");
        Result r = run("", "explain", "--rows", "1", file.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("1 statement from " + file), r.out());
        assertTrue(r.out().contains("[1] line 2: INSERT INTO t (a) VALUES (?)"), r.out());
        assertTrue(r.out().contains("batch of one row: nothing to coalesce"), r.out());
    }

    @Test
    void emptyInputIsNotAnError() {
        Result r = run("-- nothing here;\n", "explain", "-");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("No SQL statements found."), r.out());
    }
}
