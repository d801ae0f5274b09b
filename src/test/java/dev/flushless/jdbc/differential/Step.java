package dev.flushless.jdbc.differential;

import java.util.ArrayList;
import java.util.List;

/**
 * One small, serialisable JDBC step of a generated {@link Program}: it can be run ({@link Runner}), printed as
 * Java ({@link #java()}) and shrunk (batch rows dropped). The SQL carries what the oracle needs to know about it
 * ({@link Op} and target table) so that no SQL has to be parsed by the tester.
 */
sealed interface Step {

    /** What a statement does (for the oracle's model of {@code mode=transaction}). */
    enum Op {
        /** A plain {@code INSERT ... VALUES (...)}: no ON CONFLICT, no RETURNING. */
        INSERT,
        UPSERT,
        UPDATE,
        DELETE,
        /** {@code SELECT ... FROM table} (reads the table). */
        SELECT,
        /** {@code SELECT nextval('sequence')}: reads no table, calls a sequence function. */
        NEXTVAL;

        boolean isWrite() {
            return this == INSERT || this == UPSERT || this == UPDATE || this == DELETE;
        }
    }

    /** How a single statement is executed. */
    enum Call {
        EXECUTE_UPDATE,
        EXECUTE_LARGE_UPDATE,
        EXECUTE
    }

    /** Transaction control. */
    enum TxOp {
        AUTOCOMMIT_ON,
        AUTOCOMMIT_OFF,
        COMMIT,
        ROLLBACK,
        SAVEPOINT,
        ROLLBACK_TO,
        RELEASE
    }

    /** The generated-keys argument of prepareStatement/executeUpdate as Java source. */
    static String keysArgument(boolean keys, List<String> keyNames) {
        if (!keys) {
            return "";
        }
        if (keyNames == null) {
            return ", Statement.RETURN_GENERATED_KEYS";
        }
        StringBuilder out = new StringBuilder(", new String[] {");
        for (int i = 0; i < keyNames.size(); i++) {
            out.append(i > 0 ? ", " : "").append(Param.quoteJava(keyNames.get(i)));
        }
        return out.append('}').toString();
    }

    /** The step as Java source lines (statements on a connection {@code c}). */
    List<String> java();

    /** A copy without batch row (or member) {@code i}, or {@code null} when the step has no rows to drop. */
    default Step withoutRow(int i) {
        return null;
    }

    /** Rows (or members) of a batch step, 0 otherwise. */
    default int rows() {
        return 0;
    }

    /**
     * A single statement: through a {@code PreparedStatement} when {@code params} is not {@code null}, else a
     * plain {@code Statement} whose text carries the values as literals.
     */
    record Exec(Op op, String table, String sql, List<Param> params, Call call, boolean keys, List<String> keyNames)
            implements Step {

        Exec(Op op, String table, String sql, List<Param> params, Call call, boolean keys) {
            this(op, table, sql, params, call, keys, null);
        }

        @Override
        public List<String> java() {
            List<String> out = new ArrayList<>();
            String method = switch (call) {
                case EXECUTE_UPDATE -> "executeUpdate";
                case EXECUTE_LARGE_UPDATE -> "executeLargeUpdate";
                case EXECUTE -> "execute";
            };
            String keysArg = keysArgument(keys, keyNames);
            if (params == null) {
                out.add("try (Statement s = c.createStatement()) { s." + method + "(" + Param.quoteJava(sql) + keysArg
                        + ");" + (keys ? " s.getGeneratedKeys();" : "") + " }");
                return out;
            }
            out.add("try (PreparedStatement ps = c.prepareStatement(" + Param.quoteJava(sql) + keysArg + ")) {");
            for (int i = 0; i < params.size(); i++) {
                out.add("    " + params.get(i).java(i + 1));
            }
            out.add("    ps." + method + "();" + (keys ? " ps.getGeneratedKeys();" : ""));
            out.add("}");
            return out;
        }
    }

    /** A {@code PreparedStatement} batch. */
    record Batch(
            Op op,
            String table,
            String sql,
            List<List<Param>> rowParams,
            boolean keys,
            boolean large,
            List<String> keyNames)
            implements Step {

        Batch(Op op, String table, String sql, List<List<Param>> rowParams, boolean keys, boolean large) {
            this(op, table, sql, rowParams, keys, large, null);
        }

        @Override
        public List<String> java() {
            List<String> out = new ArrayList<>();
            out.add("try (PreparedStatement ps = c.prepareStatement(" + Param.quoteJava(sql)
                    + keysArgument(keys, keyNames) + ")) {");
            for (List<Param> row : rowParams) {
                StringBuilder line = new StringBuilder("    ");
                for (int i = 0; i < row.size(); i++) {
                    line.append(row.get(i).java(i + 1)).append(' ');
                }
                out.add(line.append("ps.addBatch();").toString());
            }
            out.add("    ps." + (large ? "executeLargeBatch" : "executeBatch") + "();"
                    + (keys ? " ps.getGeneratedKeys();" : ""));
            out.add("}");
            return out;
        }

        @Override
        public Step withoutRow(int i) {
            if (rowParams.size() <= 1) {
                return null;
            }
            List<List<Param>> rest = new ArrayList<>(rowParams);
            rest.remove(i);
            return new Batch(op, table, sql, List.copyOf(rest), keys, large, keyNames);
        }

        @Override
        public int rows() {
            return rowParams.size();
        }
    }

    /** One text of a {@code Statement} batch. */
    record Text(Op op, String table, String sql) {}

    /** A {@code Statement} batch of SQL texts. */
    record TextBatch(List<Text> members) implements Step {
        @Override
        public List<String> java() {
            List<String> out = new ArrayList<>();
            out.add("try (Statement s = c.createStatement()) {");
            for (Text t : members) {
                out.add("    s.addBatch(" + Param.quoteJava(t.sql()) + ");");
            }
            out.add("    s.executeBatch();");
            out.add("}");
            return out;
        }

        @Override
        public Step withoutRow(int i) {
            if (members.size() <= 1) {
                return null;
            }
            List<Text> rest = new ArrayList<>(members);
            rest.remove(i);
            return new TextBatch(List.copyOf(rest));
        }

        @Override
        public int rows() {
            return members.size();
        }
    }

    /** A query (its rows are observed): a {@code PreparedStatement} when {@code params} is not {@code null}. */
    record Query(Op op, String table, String sql, List<Param> params) implements Step {
        @Override
        public List<String> java() {
            if (params == null) {
                return List.of(
                        "try (Statement s = c.createStatement()) { s.executeQuery(" + Param.quoteJava(sql) + "); }");
            }
            List<String> out = new ArrayList<>();
            out.add("try (PreparedStatement ps = c.prepareStatement(" + Param.quoteJava(sql) + ")) {");
            for (int i = 0; i < params.size(); i++) {
                out.add("    " + params.get(i).java(i + 1));
            }
            out.add("    ps.executeQuery();");
            out.add("}");
            return out;
        }
    }

    /** Transaction control; {@code savepoint} names the savepoint of the savepoint operations. */
    record Tx(TxOp op, String savepoint) implements Step {
        @Override
        public List<String> java() {
            return List.of(
                    switch (op) {
                        case AUTOCOMMIT_ON -> "c.setAutoCommit(true);";
                        case AUTOCOMMIT_OFF -> "c.setAutoCommit(false);";
                        case COMMIT -> "c.commit();";
                        case ROLLBACK -> "c.rollback();";
                        case SAVEPOINT -> "Savepoint " + savepoint + " = c.setSavepoint(\"" + savepoint + "\");";
                        case ROLLBACK_TO -> "c.rollback(" + savepoint + ");";
                        case RELEASE -> "c.releaseSavepoint(" + savepoint + ");";
                    });
        }
    }
}
