package dev.flushless.jdbc.batch;

import dev.flushless.jdbc.FlushlessConfig;
import dev.flushless.jdbc.analysis.SqlAnalyzer;
import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.batch.BatchPlan.Step;
import dev.flushless.jdbc.session.SessionFacts;
import dev.flushless.jdbc.session.TableCatalog.ColumnInfo;
import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import dev.flushless.jdbc.session.TableCatalog.UniqueKey;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Inputs for the planners' unit tests, without a server: SQL described by {@link SqlAnalyzer}, rows of
 * {@link Bind}s, hand-made catalog facts, and settings built from {@code flushless.*} properties.
 */
final class PlannerFixture {

    static final SqlAnalyzer ANALYZER = new SqlAnalyzer(64);

    /** pgjdbc's defaults (stringtype=varchar, binary transfer, standard_conforming_strings on, quoted RETURNING). */
    static final SessionFacts PGJDBC = new SessionFacts(true, true, true, true, true, true);

    static final ColumnInfo ID = new ColumnInfo("id", 23, "integer", true);
    static final ColumnInfo NAME = new ColumnInfo("name", 25, "text", true);
    static final ColumnInfo VERSION = new ColumnInfo("version", 23, "integer", true);
    static final ColumnInfo CODE = new ColumnInfo("code", 1043, "character varying", true, 3);
    static final ColumnInfo TS = new ColumnInfo("ts", 1114, "timestamp without time zone", true);
    static final ColumnInfo PRICE = new ColumnInfo("price", 1700, "numeric", true);

    private PlannerFixture() {}

    static StatementDescription sql(String sql) {
        return ANALYZER.describe(sql);
    }

    /** Settings of a connection configured with {@code properties} (pairs of key and value), pgjdbc's session. */
    static BatchPlanner.Settings settings(String... properties) {
        return settings(PGJDBC, properties);
    }

    /**
     * The settings of a connection configured by {@code properties}, except that keyed UPDATE and DELETE batches of
     * any size take the array form, whose SQL these tests spell out ({@code KeyedPlannerTest} holds the default
     * threshold, {@link KeyedPlanner#UNNEST_MIN_ROWS}).
     */
    static BatchPlanner.Settings settings(SessionFacts session, String... properties) {
        Properties config = new Properties();
        for (int i = 0; i < properties.length; i += 2) {
            config.setProperty(properties[i], properties[i + 1]);
        }
        try {
            return BatchPlanner.Settings.of(FlushlessConfig.from(config), session)
                    .withUnnestMinRows(0);
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    /** A plain table t (no triggers, no inheritance, no sequences) with {@code columns} and a primary key on id. */
    static TableInfo table(ColumnInfo... columns) {
        return table(List.of(new UniqueKey(List.of("id"), false, true)), columns);
    }

    static TableInfo table(List<UniqueKey> uniqueKeys, ColumnInfo... columns) {
        Map<String, ColumnInfo> byName = new LinkedHashMap<>();
        for (ColumnInfo column : columns) {
            byName.put(column.name(), column);
        }
        return new TableInfo(1, null, null, false, byName, new long[] {1}, false, uniqueKeys, null);
    }

    /**
     * A plain table t as read from the catalog: its columns in the table's order, its COPY facts known ({@code
     * notCopyable}: the columns COPY may not fill; {@code null}: not read), no unique keys.
     */
    static TableInfo readTable(java.util.Set<String> notCopyable, ColumnInfo... columns) {
        return readTable(null, notCopyable, columns);
    }

    /** {@link #readTable(java.util.Set, ColumnInfo...)} with user code ({@code userCode}: why, e.g. triggers). */
    static TableInfo readTable(String userCode, java.util.Set<String> notCopyable, ColumnInfo... columns) {
        Map<String, ColumnInfo> byName = new LinkedHashMap<>();
        for (ColumnInfo column : columns) {
            byName.put(column.name(), column);
        }
        return new TableInfo(
                7,
                null,
                userCode,
                false,
                byName,
                new long[] {7},
                false,
                List.of(),
                null,
                new long[] {7},
                List.of(),
                List.of(),
                notCopyable);
    }

    /** {@code table} whose INSERTs draw ids from a sequence. */
    static TableInfo drawingFromSequences(TableInfo t) {
        return new TableInfo(
                t.oid(),
                t.kindProblem(),
                t.userCode(),
                t.cascades(),
                t.columns(),
                t.family(),
                true,
                t.uniqueKeys(),
                t.uniquenessNotModelled());
    }

    /** One batch row: Integer, Long, String and null values become setInt, setLong, setString, setNull; Binds stay. */
    static Bind[] row(Object... values) {
        Bind[] row = new Bind[values.length];
        for (int p = 0; p < values.length; p++) {
            Object v = values[p];
            row[p] = v instanceof Bind b
                    ? b
                    : v instanceof Integer i
                            ? Bind.ofInt(i)
                            : v instanceof Long l
                                    ? Bind.ofLong(l)
                                    : v instanceof String s
                                            ? Bind.ofString(s)
                                            : v == null ? Bind.ofNull(Types.INTEGER) : Bind.ofObject(v);
        }
        return row;
    }

    static List<Bind[]> rows(Bind[]... rows) {
        return new ArrayList<>(Arrays.asList(rows));
    }

    /** {@code count} rows (id = i + 1, name = "n" + i), each followed by {@code extra}. */
    static List<Bind[]> numbered(int count, Object... extra) {
        List<Bind[]> rows = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            Object[] values = new Object[2 + extra.length];
            values[0] = i + 1;
            values[1] = "n" + i;
            System.arraycopy(extra, 0, values, 2, extra.length);
            rows.add(row(values));
        }
        return rows;
    }

    /** Each step's batch rows. */
    static List<List<Integer>> rowsOf(BatchPlan plan) {
        List<List<Integer>> rows = new ArrayList<>();
        for (Step step : plan.statements()) {
            rows.add(Arrays.stream(step.rows()).boxed().toList());
        }
        return rows;
    }

    /** Each step's row count. */
    static List<Integer> sizesOf(BatchPlan plan) {
        return plan.statements().stream().map(step -> step.rows().length).toList();
    }

    /** The contents of each of a step's arrays. */
    static List<List<Object>> arraysOf(Step step) {
        return Arrays.stream(step.arrays()).map(Arrays::asList).toList();
    }

    /** The values of a step's tail binds. */
    static List<Object> tailOf(Step step) {
        return Arrays.stream(step.tail()).map(Bind::value).toList();
    }
}
