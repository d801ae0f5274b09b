package dev.flushless.jdbc.replica;

import dev.flushless.jdbc.batch.Bind;
import dev.flushless.jdbc.replica.ReplicaSession.Query;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** The pgjdbc statements a routed query runs on the replica connection ({@link ReplicaSession}). */
final class ReplicaStatements {

    private ReplicaStatements() {}

    /**
     * The replica statement for {@code query}: a PreparedStatement of the check and the query (the check's two
     * parameters first), or of the query alone, or a plain Statement for a text holding {@code ?}; with the
     * application statement's settings.
     */
    static Statement prepare(Connection replica, Query query, boolean withCheck) throws SQLException {
        Statement settings = query.settings();
        int type = settings.getResultSetType();
        int holdability = settings.getResultSetHoldability();
        Statement s;
        if (query.prepared() || query.sql().indexOf('?') < 0) {
            String text = withCheck ? WaitCheck.SQL + ";\n" + query.sql() : query.sql();
            PreparedStatement ps = replica.prepareStatement(text, type, ResultSet.CONCUR_READ_ONLY, holdability);
            Bind[] parameters = query.parameters();
            if (parameters != null) {
                int offset = withCheck ? WaitCheck.PARAMETERS : 0;
                for (int i = 0; i < parameters.length; i++) {
                    if (parameters[i] != null) {
                        parameters[i].applyTo(ps, i + 1 + offset);
                    }
                }
            }
            s = ps;
        } else {
            s = replica.createStatement(type, ResultSet.CONCUR_READ_ONLY, holdability);
        }
        s.setFetchSize(settings.getFetchSize());
        s.setMaxRows(settings.getMaxRows());
        s.setQueryTimeout(settings.getQueryTimeout());
        s.setMaxFieldSize(settings.getMaxFieldSize());
        return s; // closed by the facade at its next execution or close
    }

    /** Runs the replica statement of {@code query} as prepared by {@link #prepare}. */
    static void execute(Statement s, Query query) throws SQLException {
        if (s instanceof PreparedStatement ps) {
            ps.execute();
        } else {
            s.execute(query.sql());
        }
    }
}
