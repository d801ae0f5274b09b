package dev.flushless.jdbc.buffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.analysis.SqlAnalyzer;
import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.batch.Bind;
import dev.flushless.jdbc.session.TableCatalog.ColumnInfo;
import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Transaction mode's decisions without a server: the rules the driver and explain share. */
class BufferRulesTest {

    private static final SqlAnalyzer ANALYZER = new SqlAnalyzer(64);
    private static final TableInfo T = table(1, false);
    private static final TableInfo U = table(2, false);
    private static final TableInfo SERIAL = table(3, true);

    private static TableInfo table(long oid, boolean drawsFromSequences) {
        return new TableInfo(
                oid,
                null,
                null,
                false,
                Map.of("id", new ColumnInfo("id", 23, "integer", true), "v", new ColumnInfo("v", 25, "text", true)),
                new long[] {oid},
                drawsFromSequences);
    }

    private static StatementDescription sql(String sql) {
        return ANALYZER.describe(sql);
    }

    private static TableInfo lookup(String name) {
        return switch (name) {
            case "t" -> T;
            case "u" -> U;
            case "s" -> SERIAL;
            default -> new TableInfo(9, "target is not a plain table (relkind v)", null, false, Map.of());
        };
    }

    private static TransactionBuffer holding(TableInfo table, int rows) {
        TransactionBuffer buffer = new TransactionBuffer();
        StatementDescription insert = sql("INSERT INTO t (id, v) VALUES (?, ?)");
        List<Bind[]> bound = new java.util.ArrayList<>();
        for (int r = 0; r < rows; r++) {
            bound.add(new Bind[] {Bind.ofInt(r), Bind.ofString("v")});
        }
        buffer.add(new BufferedWrite(insert, table, bound, false, true));
        return buffer;
    }

    @Test
    void onlyPlainInsertsWithEveryParameterSetAreBuffered() {
        Bind[] full = {Bind.ofInt(1), Bind.ofString("a")};
        assertNull(
                BufferRules.whyNotBufferable(sql("INSERT INTO t (id, v) VALUES (?, ?)"), List.<Bind[]>of(full), false));
        assertNull(BufferRules.whyNotBufferable(
                sql("INSERT INTO t (id, v) VALUES (1, 'a')"), List.<Bind[]>of(new Bind[0]), true));
        assertEquals(
                "a parameter is not set",
                BufferRules.whyNotBufferable(
                        sql("INSERT INTO t (id, v) VALUES (?, ?)"),
                        List.<Bind[]>of(new Bind[] {Bind.ofInt(1), null}),
                        false));
        assertEquals(
                "a ? in a Statement's text is an operator, not a parameter",
                BufferRules.whyNotBufferable(
                        sql("INSERT INTO t (id, v) VALUES (?, 'a')"), List.<Bind[]>of(new Bind[0]), true));
        assertEquals(
                "RETURNING: its rows are read",
                BufferRules.whyNotBufferable(
                        sql("INSERT INTO t (id, v) VALUES (?, ?) RETURNING id"), List.<Bind[]>of(full), false));
        assertEquals(
                "ON CONFLICT: its update count is not known in advance",
                BufferRules.whyNotBufferable(
                        sql("INSERT INTO t (id, v) VALUES (?, ?) ON CONFLICT (id) DO NOTHING"),
                        List.<Bind[]>of(full),
                        false));
        assertEquals(
                "not an INSERT",
                BufferRules.whyNotBufferable(sql("UPDATE t SET v = ? WHERE id = ?"), List.<Bind[]>of(full), false));
    }

    @Test
    void readsSendTheBufferOnlyWhenTheyMaySeeIt() {
        TransactionBuffer buffer = holding(T, 1);
        assertEquals(BufferRules.Flush.NONE, flush("SELECT v FROM u WHERE id = 1", buffer));
        assertEquals(BufferRules.Flush.READ_OF_WRITTEN_TABLE, flush("SELECT v FROM t WHERE id = 1", buffer));
        assertEquals(BufferRules.Flush.UNANALYSABLE_READ, flush("SELECT * FROM some_view", buffer));
        assertEquals(BufferRules.Flush.NONE, flush("SELECT nextval('u_seq')", buffer), "no buffered table draws");
        assertEquals(BufferRules.Flush.SEQUENCE_CALL, flush("SELECT nextval('u_seq')", holding(SERIAL, 1)));
        assertEquals(BufferRules.Flush.WRITE, flush("UPDATE u SET v = 'x' WHERE id = 1", buffer));
        assertEquals(BufferRules.Flush.OTHER_STATEMENT, flush("CREATE TABLE z (a int)", buffer));
    }

    private static BufferRules.Flush flush(String sql, TransactionBuffer buffer) {
        return BufferRules.beforeStatement(SqlAnalyzer.leadingKind(sql), sql(sql), buffer, BufferRulesTest::lookup);
    }

    @Test
    void writesRideAlongWhenTheirCountIsAllTheyReturn() {
        assertNull(BufferRules.whyNotRideable(
                sql("UPDATE t SET v = ? WHERE id = ?"),
                new Bind[] {Bind.ofString("a"), Bind.ofInt(1)},
                false,
                () -> true));
        assertEquals(
                "RETURNING: its rows are read",
                BufferRules.whyNotRideable(
                        sql("UPDATE t SET v = ? WHERE id = ? RETURNING id"),
                        new Bind[] {Bind.ofString("a"), Bind.ofInt(1)},
                        false,
                        () -> false));
        assertEquals(
                "it may draw from a sequence and flushless.exactSequences=true",
                BufferRules.whyNotRideable(sql("INSERT INTO s (v) VALUES ('a')"), null, true, () -> true));
        assertNull(BufferRules.whyNotRideable(sql("INSERT INTO s (v) VALUES ('a')"), null, false, () -> true));
    }

    /**
     * The bounds are "at most": a buffer of exactly {@code flushless.maxBufferedRows} rows is not sent early (a script of
     * 10,000 buffered INSERTs and COMMIT is one round trip); the next row sends it first.
     */
    @Test
    void sizeBoundsAreInclusive() {
        TransactionBuffer buffer = holding(T, 9_999);
        assertFalse(BufferRules.sendBeforeAdding(buffer, 1, 10, 10_000, Long.MAX_VALUE));
        assertFalse(BufferRules.sendAfterAdding(holding(T, 10_000), 10_000, Long.MAX_VALUE));
        assertTrue(BufferRules.sendBeforeAdding(holding(T, 10_000), 1, 10, 10_000, Long.MAX_VALUE));
        assertFalse(
                BufferRules.sendBeforeAdding(new TransactionBuffer(), 20_000, 10, 10_000, Long.MAX_VALUE),
                "an empty buffer takes a write of any size");
        assertTrue(BufferRules.sendAfterAdding(holding(T, 20_000), 10_000, Long.MAX_VALUE), "then sends it at once");
    }

    @Test
    void rollbackSendsTheBufferOnlyToDrawItsSequenceValues() {
        assertTrue(BufferRules.sendBeforeRollback(holding(SERIAL, 1), false));
        assertFalse(BufferRules.sendBeforeRollback(holding(SERIAL, 1), true), "not after the transaction failed");
        assertFalse(BufferRules.sendBeforeRollback(holding(T, 1), false));
    }
}
