package dev.flushless.jdbc.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
    private record Result(int code, String out, String err) {
    }

    private static Result run(String stdin, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = FlushlessMain.run(args, new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
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
        assertEquals(List.of(
                "INSERT INTO t VALUES ('a;b', E'c\\';d')",
                "-- a comment; with a semicolon\n"
                        + "UPDATE t SET x = $$;$$ || $tag$ ; $$ ; $tag$ WHERE \"we;ird\" = 1", // trailing comment left out
                "SELECT f(';', (SELECT 1))",
                "DELETE FROM t WHERE id = ?"), statements);
    }

    @Test
    void unterminatedQuoteExtendsToTheEnd() {
        assertEquals(List.of("INSERT INTO t VALUES (1)", "INSERT INTO t VALUES ('open; still open"),
                SqlAnalyzer.splitStatements("INSERT INTO t VALUES (1); INSERT INTO t VALUES ('open; still open"));
    }

    @Test
    void insertBatchIsCoalescedIntoChunksOfMaxRows() {
        Result r = run("INSERT INTO orders (id, customer) VALUES (?, ?);", "explain", "--rows", "10000", "--max-rows",
                "4096", "-");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("coalesced: insert-unnest"), r.out());
        assertTrue(r.out().contains("statements: 10000 issued -> 3 sent (in one round trip)"), r.out());
        assertTrue(r.out().contains("first statement: 4096 rows"), r.out());
        assertTrue(r.out().contains("INSERT INTO orders (id, customer) SELECT"), r.out());
        assertTrue(r.out().contains("untyped (text) parameters"), r.out());
        assertTrue(r.out().contains("estimated YugabyteDB flushes: 10000 before -> 3 after"), r.out());
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
        Result r = run("INSERT INTO audit SELECT * FROM orders WHERE id = ?;\nUPDATE t SET a = ? WHERE b IN (?, ?)",
                "explain", "--rows", "50", "-");
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
        Result r = run("insert into demo1(value) values ('Bonjour');\n"
                + "insert into demo2(value) values ('Ciao');\n"
                + "insert into demo3(value) values ('Grüezi');\n", "explain", "-");
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
        Result r = run("insert into demo (id,a,b,c) select generate_series(100000,200000),0,0,0 on conflict do nothing;\n"
                + "insert into demo (id, a, b, c) values (?, ?, ?, ?) on conflict (id) do nothing;\n", "explain", "--rows",
                "3000", "-");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("not coalesced, runs as sent: INSERT ... SELECT"), r.out());
        assertTrue(r.out().contains("coalesced: upsert-do-nothing"), r.out());
        assertTrue(r.out().contains("statements: 3000 issued -> 1 sent"), r.out());
    }

    @Test
    void statementBatchIsGroupedIntoChains() {
        Result r = run("INSERT INTO log (msg) VALUES ('one');\n"
                + "INSERT INTO log (msg) VALUES ('two');\n"
                + "UPDATE counters SET n = n + 1 WHERE name = 'a';\n"
                + "UPDATE counters SET n = n + 1 WHERE name = 'b';\n", "explain", "-");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("Statement batch of statements [1] to [4]: coalesced: statement-chain"), r.out());
        assertTrue(r.out().contains("statements: 4 issued -> 2 sent"), r.out());
        assertTrue(r.out().contains("chain 1 of [1], [2], [3]:"), r.out());
        assertTrue(r.out().contains("WITH flushless_s1 AS (INSERT INTO log (msg) VALUES ('one')"), r.out());
        assertTrue(r.out().contains("[4] alone, as written") || r.out().contains("chain 2"), r.out());
        assertTrue(r.out().contains("Statement batches (parameterless writes, once each): 4 issued -> 2 sent"), r.out());
    }

    @Test
    void transactionModeIsExplainedAsBatch() {
        Result r = run("DELETE FROM carts WHERE id = ?", "explain", "--mode", "transaction", "-");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("transaction is not implemented yet"), r.out());
        assertTrue(r.out().contains("coalesced: delete-using"), r.out());
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
        for (String[] args : new String[][] {{"explain"}, {"explain", "--rows", "0", "-"}, {"explain", "--rows"},
                {"explain", "--rows", "many", "-"}, {"explain", "--mode", "eager", "-"}, {"explain", "--bogus", "-"},
                {"explain", "a.sql", "b.sql"}, {"frobnicate"}, {}}) {
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
